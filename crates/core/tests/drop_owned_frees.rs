//! The packet-level half of what keeps the engine's packet pool from
//! leaking: `Packet::owns_heap` finds every packet whose drop frees heap
//! memory, and `Packet::drop_owned` (what the pool's `claim_vacant` calls
//! on the slot it makes vacant) frees it, so the write over the slot
//! (`Packet::overwrite_plain_with`, which forgets the packet replaced)
//! leaks nothing. Until session 31 the boxed MPTCP signalling options of
//! every handshake segment were forgotten (a few allocations a connection).
//! The whole-world half (the pool cleans where it must) is
//! `crates/sim/tests/world_frees.rs`. A binary of its own, for its counting
//! allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use mptlab_core::packet::{
    Dss, MpCapable, MptcpControl, MptcpOptions, Packet, Payload, TcpSegment, UdpDatagram,
};
use mptlab_core::sctp::chunk::SctpPacket;

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

fn live() -> isize {
    LIVE.load(Ordering::SeqCst)
}

fn segment(mptcp: Option<MptcpOptions>) -> Packet {
    Packet {
        size: 52,
        payload: Payload::Tcp(TcpSegment::with_mptcp(1, 2, mptcp)),
        ..Packet::VACANT
    }
}

/// An MP_CAPABLE SYN: its signalling options are boxed (one block).
fn handshake_segment() -> Packet {
    let control = MptcpControl {
        capable: Some(MpCapable {
            sender_key: 7,
            receiver_key: None,
            checksum: false,
        }),
        ..MptcpControl::default()
    };
    segment(Some(MptcpOptions {
        dss: None,
        control: Some(Box::new(control)),
    }))
}

/// An MPTCP data ACK: a DSS, inline, nothing boxed.
fn data_ack_segment() -> Packet {
    segment(Some(MptcpOptions {
        dss: Some(Dss::with_data_ack(9)),
        control: None,
    }))
}

/// An SCTP packet with no chunks: the box alone (one block).
fn sctp_packet() -> Packet {
    Packet {
        payload: Payload::Sctp(Box::new(SctpPacket {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: Vec::new(),
        })),
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
fn drop_owned_frees_what_owns_heap_finds_and_a_plain_write_then_leaks_nothing() {
    // the owning packets: cleaned, they free their block and are vacant
    for (name, make) in [
        ("MP_CAPABLE segment", handshake_segment as fn() -> Packet),
        ("SCTP packet", sctp_packet),
    ] {
        let mut slot = make();
        assert!(slot.owns_heap(), "{name}");
        let before = live();
        slot.drop_owned();
        assert_eq!(live(), before - 1, "{name}: its box was not freed");
        assert_eq!(slot, Packet::VACANT, "{name}");
        assert!(!slot.owns_heap(), "{name}");
        // the write over the cleaned slot forgets nothing that owned memory
        let before = live();
        slot.overwrite_plain_with(datagram);
        assert_eq!(live(), before, "{name}");
        assert_eq!(slot, datagram());
    }
    // the plain packets: nothing to free, left as they were
    for (name, make) in [
        ("plain TCP segment", (|| segment(None)) as fn() -> Packet),
        ("MPTCP data ACK", data_ack_segment),
        ("UDP datagram", datagram),
        ("vacant", || Packet::VACANT),
    ] {
        let mut slot = make();
        assert!(!slot.owns_heap(), "{name}");
        let before = live();
        slot.drop_owned();
        assert_eq!(live(), before, "{name}");
        assert_eq!(slot, make(), "{name}");
        // so a plain write over it leaks nothing: the new packet's box is
        // the only block added, and cleaning the slot frees it
        slot.overwrite_plain_with(handshake_segment);
        assert_eq!(live(), before + 1, "{name}");
        slot.drop_owned();
        assert_eq!(live(), before, "{name}");
    }
}
