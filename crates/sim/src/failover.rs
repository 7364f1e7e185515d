//! Application-level failover of a saturated TCP transfer (seed 004 sec.
//! 4.4): "The application detected that WiFi interface went down and
//! reconnected with a new TCP connection (switched) to the 3G interface."
//!
//! The application has no view of the interfaces here; it notices the loss
//! of its path as a stall: nothing delivered to the receiver for `after`.
//! It then opens the backup connection over the other client path and keeps
//! the new connection's send buffer full from then on (it never switches
//! back, as in the paper). The abandoned connection is not aborted (mptlab's
//! TCP has no RST): data already in its send buffer is still delivered if
//! the old path returns, and counts in the goodput of the run.
//!
//! With `traffic.client_hello_bytes` the client writes that many bytes on
//! each connection as soon as it is connected, as the emulator's agent
//! writes its 16-byte hello on both (crates/emu/src/failover.rs
//! `client_conn`), and a sending server starts on a connection once it has
//! read them (`serve` reads the hello before anything else). There, the
//! server's set-up counts as progress when it has read the hello, so here
//! too (not at its `Connected`).

use mptlab_core::endpoint::AppEvent;
use mptlab_core::{FlowId, Nanos};

use crate::metrics::Report;
use crate::world::{App, AppIo, Side};

/// Bytes a saturated writer offers per call (the endpoint takes what fits).
const CHUNK: u64 = 1 << 40;

pub struct FailoverBulkApp {
    primary: FlowId,
    backup: FlowId,
    sender: Side,
    start: Nanos,
    after: Nanos,
    started: bool,
    /// Last in-order delivery (or connection set-up) on the active flow.
    last_progress: Nanos,
    switched_at: Option<Nanos>,
    /// The client's hello on each connection (0: none); see `hello`.
    hello: u64,
    /// Per connection (primary, backup): the server has read the hello.
    server_ready: [bool; 2],
}

impl FailoverBulkApp {
    pub fn new(primary: FlowId, backup: FlowId, sender: Side, start: Nanos, after: Nanos) -> Self {
        FailoverBulkApp {
            primary,
            backup,
            sender,
            start,
            after,
            started: false,
            last_progress: start,
            switched_at: None,
            hello: 0,
            server_ready: [true; 2],
        }
    }

    /// The client writes `bytes` on each connection once it is connected,
    /// before any data (the agent's hello, `emu::failover::client_conn`).
    pub fn hello(mut self, bytes: u64) -> Self {
        self.hello = bytes;
        self.server_ready = [bytes == 0; 2];
        self
    }

    fn index(&self, flow: FlowId) -> usize {
        usize::from(flow == self.backup)
    }

    /// A side's set-up on `flow` is progress, and a sender starts writing.
    fn set_up(&mut self, flow: FlowId, side: Side, io: &mut AppIo) {
        self.last_progress = io.now;
        if side == self.sender {
            io.write(flow, side, CHUNK);
        }
    }

    fn active(&self) -> FlowId {
        if self.switched_at.is_some() {
            self.backup
        } else {
            self.primary
        }
    }

    /// When the application switched to the backup path, if it did.
    pub fn switched_at(&self) -> Option<Nanos> {
        self.switched_at
    }
}

impl App for FailoverBulkApp {
    fn start(&mut self, _io: &mut AppIo) {}

    fn on_event(&mut self, flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        if flow != self.active() {
            return; // the abandoned connection gets no more data
        }
        let idx = self.index(flow);
        match ev {
            AppEvent::Connected if side == Side::Client => {
                if self.hello > 0 {
                    io.write(flow, side, self.hello);
                }
                self.set_up(flow, side, io);
            }
            // the server's set-up: its accept, or its read of the hello
            AppEvent::Connected if self.server_ready[idx] => self.set_up(flow, side, io),
            AppEvent::Delivered { total }
                if side == Side::Server && !self.server_ready[idx] && total >= self.hello =>
            {
                self.server_ready[idx] = true;
                self.set_up(flow, side, io);
            }
            AppEvent::Writable
                if side == self.sender && (side == Side::Client || self.server_ready[idx]) =>
            {
                io.write(flow, side, CHUNK);
            }
            AppEvent::Delivered { .. } if side != self.sender => self.last_progress = io.now,
            _ => {}
        }
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        if !self.started {
            self.started = true;
            self.last_progress = io.now;
            io.connect(self.primary);
        } else if self.switched_at.is_none() && io.now >= self.last_progress + self.after {
            self.switched_at = Some(io.now);
            io.connect(self.backup);
        }
        // otherwise a stale timer: progress was made since it was armed
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        if !self.started {
            Some(self.start)
        } else if self.switched_at.is_none() {
            Some(self.last_progress + self.after)
        } else {
            None
        }
    }

    fn is_done(&self) -> bool {
        false
    }

    fn report(&self, _rep: &mut Report) {}
}
