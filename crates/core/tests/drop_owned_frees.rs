//! A packet written over in its slot (`Packet::overwrite_with`,
//! `overwrite_last`) frees what the packet it replaces owned on the heap.
//! The writes forget the old packet to skip the drop glue, so a heap-owning
//! packet they did not test for leaked: until session 31 the boxed MPTCP
//! signalling options of every handshake segment did (a few allocations a
//! connection, which also fragmented the heap of a process making many
//! runs). A binary of its own, for its counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use mptlab_core::packet::{
    MpCapable, MptcpControl, MptcpOptions, Packet, Payload, TcpSegment, UdpDatagram,
};

/// Live heap blocks (allocations less frees), over every thread.
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn handshake_segment() -> Packet {
    let control = MptcpControl {
        capable: Some(MpCapable {
            sender_key: 7,
            receiver_key: None,
            checksum: false,
        }),
        ..MptcpControl::default()
    };
    let opts = MptcpOptions {
        dss: None,
        control: Some(Box::new(control)),
    };
    Packet {
        size: 52,
        payload: Payload::Tcp(TcpSegment::with_mptcp(1, 2, Some(opts))),
        ..Packet::VACANT
    }
}

fn datagram() -> Packet {
    Packet {
        payload: Payload::Udp(UdpDatagram {
            src_port: 1,
            dst_port: 2,
            len: 10,
            seq: 0,
            sent_at: 0,
        }),
        ..Packet::VACANT
    }
}

// One test function: the counter is process-wide, and tests in one binary
// run on parallel threads.
#[test]
fn an_overwrite_drops_the_mptcp_signalling_options_it_replaces() {
    for last in [false, true] {
        let mut slot = handshake_segment();
        assert!(slot.owns_heap());
        let before = LIVE.load(Ordering::SeqCst);
        if last {
            slot.overwrite_last(datagram);
        } else {
            slot.overwrite_with(datagram);
        }
        let after = LIVE.load(Ordering::SeqCst);
        assert_eq!(
            after,
            before - 1,
            "overwrite_{}: the replaced segment's boxed options were not freed",
            if last { "last" } else { "with" }
        );
        assert!(!slot.owns_heap());
    }
    // and a packet that owns nothing frees nothing
    let mut slot = datagram();
    let before = LIVE.load(Ordering::SeqCst);
    slot.overwrite_with(datagram);
    assert_eq!(LIVE.load(Ordering::SeqCst), before);
}
