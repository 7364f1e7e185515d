//! Wakeups of a writer blocked on the connection's send buffer (upstream
//! Linux, the msk socket's wait queue).
//!
//! A blocking `sendmsg` on a full MPTCP socket sleeps in
//! `sk_stream_wait_memory` (net/core/stream.c) on the msk socket's wait
//! queue, and goes on writing after *any* wakeup of that queue as soon as
//! `sk_stream_memory_free(sk)` holds, i.e. `sk_wmem_queued < sk_sndbuf`
//! (`mptcp_stream_memory_free` adds the `notsent_lowat` test, which the
//! default `UINT_MAX` always passes). The hysteresis "a third of the buffer
//! free" (`sk_stream_write_space` -> `__sk_stream_is_writeable`: free space
//! at least half of what is queued) belongs to one waker only: the write
//! space callback, `mptcp_write_space`, run when DATA_ACKs free memory
//! (`MptcpConnection::after_activity`). Other wakers of the same queue have
//! no such threshold:
//!
//! - a subflow's TCP state change. Every subflow's `sk_wq` is the msk
//!   socket's (`mptcp_sock_graft`; a passive MP_JOIN subflow is grafted in
//!   `mptcp_finish_join` -> `mptcp_sock_check_graft` while its third ACK is
//!   processed), and its `sk_state_change` is `subflow_state_change`
//!   (net/mptcp/subflow.c), whose `__subflow_state_change` calls
//!   `wake_up_interruptible_all` on that queue. So a join subflow becoming
//!   ESTABLISHED (`tcp_rcv_state_process` SYN_RECV -> ESTABLISHED on the
//!   passive side, `tcp_finish_connect` on the active side) wakes the writer;
//! - in-sequence data reaching the msk (`mptcp_data_ready` ->
//!   `sk->sk_data_ready`, `sock_def_readable`): the wait entry of
//!   `sk_stream_wait_memory` (`woken_wake_function`) does not filter by
//!   event, so a reader's wakeup also wakes a blocked writer.
//!
//! Seen on this project's Linux 6.18 host with the `mptcp:mptcp_sendmsg_frag`
//! and `mptcp:mptcp_subflow_get_send` tracepoints (docs/validation.md, "1 MB
//! over Wi-Fi + LTE"): the server's writer, blocked since its first 511 KiB,
//! pushes again 60 us after the LTE join's third ACK arrives, with less than
//! a sixth of the buffer acknowledged.
//!
//! Simplification: a poll/epoll writer sees `EPOLLOUT` only with the
//! hysteresis (`mptcp_check_writeable`); the model's applications write as
//! the emulator's agents do, with blocking writes. Subflow closes (also a
//! state change) are not modelled as wakers.

use super::*;

impl MptcpConnection {
    /// A wakeup of the msk socket's wait queue that is not the write-space
    /// callback: a writer blocked in `sk_stream_wait_memory` resumes if
    /// `sk_stream_memory_free(msk)` holds. Upstream model only (the
    /// per-subflow send buffers of `super::super::sndbuf`).
    pub(super) fn wake_blocked_writer(&mut self) {
        if self.bufs.is_none() || !self.write_blocked {
            return;
        }
        // `sk_stream_memory_free`: `sk_wmem_queued < sk_sndbuf`, the test
        // `mptcp_send_limit` also applies before each page fragment.
        if self.send.wmem_queued() < self.send.sndbuf {
            self.write_blocked = false;
            self.events.push_back(AppEvent::Writable);
        }
    }
}
