//! Applications: the glue between traffic models and endpoints, and where
//! application-level metrics (message delay, completion time) are measured.

use mptlab_core::endpoint::AppEvent;
use mptlab_core::packet::IpVersion;
use mptlab_core::traffic::browser::{Browser, BrowserAction, HttpServerConn};
use mptlab_core::udp::{max_udp_payload, MAX_UDP_PAYLOAD};
use mptlab_core::{FlowId, Nanos};

use crate::metrics::{Jitter, MessageRecord, Report, StreamMessages};
use crate::world::{App, AppIo, Side};
use mptlab_results::records::Transfer;

// The schedules are set up by mptlab-setup (shared with emulation).
pub use mptlab_setup::traffic::{FnSchedule, Schedule, SourceSchedule};

/// Messages (video frames, game packets) written into a byte stream by one
/// side and measured at the other. The connection opens at `connect_at`.
pub struct StreamApp {
    flow: FlowId,
    sender: Side,
    connect_at: Nanos,
    connected: bool,
    started: bool,
    schedule: Box<dyn Schedule>,
    next: Option<(Nanos, u32)>,
    /// Bytes of each message not yet written, oldest first. Message-oriented
    /// transports (SCTP): each written whole once the send buffer has room
    /// for it. Byte streams: each with its own write call, what the send
    /// buffer refuses written later before the next message (`write_all`,
    /// as the emulator's agent does, `emu::agent::send_messages`): over
    /// upstream MPTCP every write is a scheduler push of its own.
    messages: std::collections::VecDeque<u64>,
    per_message: bool,
    /// Bytes the client writes when the connection is up, before any
    /// message (0: none); see `hello`.
    hello: u64,
    finite: bool,
    log: StreamMessages,
}

impl StreamApp {
    /// `finite`: the schedule ends and the app is done once every message is
    /// delivered (otherwise it runs until the end of the run).
    pub fn new(
        flow: FlowId,
        sender: Side,
        connect_at: Nanos,
        mut schedule: Box<dyn Schedule>,
        finite: bool,
    ) -> Self {
        let next = schedule.next_message();
        StreamApp {
            flow,
            sender,
            connect_at,
            connected: false,
            started: false,
            schedule,
            next,
            messages: Default::default(),
            per_message: false,
            hello: 0,
            finite,
            log: StreamMessages::new(flow),
        }
    }

    /// Write each message with its own call, only when it fits whole (as an
    /// application does over SCTP's message-oriented socket).
    pub fn per_message(mut self, on: bool) -> Self {
        self.per_message = on;
        self
    }

    /// The client writes `bytes` first, as the emulator's agent writes its
    /// hello (`emu::agent`, docs/emulation.md "Traffic agent and wire
    /// protocol") and a game or video client its request: over MPTCP the
    /// client is fully established, and its path manager opens the other
    /// subflows, only once the server acknowledged data (Linux
    /// net/mptcp/options.c `check_fully_established`), so without a first
    /// write from the client no subflow joins before the server's first
    /// message.
    pub fn hello(mut self, bytes: u64) -> Self {
        self.hello = bytes;
        self
    }

    fn flush(&mut self, io: &mut AppIo) {
        if !self.connected {
            return;
        }
        while let Some(m) = self.messages.front_mut() {
            if self.per_message {
                if io.send_space(self.flow, self.sender) < *m {
                    break;
                }
                let n = io.write(self.flow, self.sender, *m);
                debug_assert_eq!(n, *m);
            } else {
                *m -= io.write(self.flow, self.sender, *m);
                if *m > 0 {
                    break;
                }
            }
            self.messages.pop_front();
        }
    }
}

impl App for StreamApp {
    fn start(&mut self, _io: &mut AppIo) {}

    fn on_event(&mut self, _flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        match ev {
            AppEvent::Connected if side == Side::Client && self.hello > 0 => {
                io.write(self.flow, Side::Client, self.hello);
                if side == self.sender {
                    self.connected = true;
                    self.flush(io);
                }
            }
            AppEvent::Connected if side == self.sender => {
                self.connected = true;
                self.flush(io);
            }
            AppEvent::Writable if side == self.sender => self.flush(io),
            AppEvent::Delivered { total } if side != self.sender => {
                // the client's hello precedes its messages in an upload
                let hello = if self.sender == Side::Client {
                    self.hello
                } else {
                    0
                };
                self.log.delivered(io.now, total.saturating_sub(hello))
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        if !self.started && io.now >= self.connect_at {
            self.started = true;
            io.connect(self.flow);
        }
        while let Some((t, bytes)) = self.next {
            if t > io.now {
                break;
            }
            if self.per_message {
                // A message-oriented socket refuses a message larger than its
                // send buffer at the send call (SCTP: EMSGSIZE, Linux
                // `sctp_sendmsg_parse`, see `Endpoint::max_message`); the
                // application drops it and goes on with the next one. The
                // bound is fixed, so refusing at generation is the same as
                // refusing when the message reaches the head of the queue.
                if io
                    .max_message(self.flow, self.sender)
                    .is_some_and(|max| bytes as u64 > max)
                {
                    self.log.refused(t, bytes);
                    io.message_refused(self.flow, self.sender);
                } else {
                    self.log.sent(t, bytes);
                    io.message(self.flow, self.sender, t, bytes);
                    self.messages.push_back(bytes as u64);
                }
            } else {
                // Byte streams (TCP, MPTCP) take a message of any size, in
                // as many writes as the send buffer needs.
                self.log.sent(t, bytes);
                io.message(self.flow, self.sender, t, bytes);
                self.messages.push_back(bytes as u64);
            }
            self.next = self.schedule.next_message();
        }
        self.flush(io);
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        if !self.started {
            return Some(self.connect_at);
        }
        self.next.map(|(t, _)| t)
    }

    fn is_done(&self) -> bool {
        self.finite && self.next.is_none() && self.log.all_delivered()
    }

    fn report(&self, rep: &mut Report) {
        rep.messages.extend(self.log.finish());
    }
}

/// Bytes per `write()` call of a file sender on a stream socket: the
/// emulator's agent writes files from a 64 KiB buffer (`write_bytes` in
/// crates/emu/src/agent.rs). Upstream Linux MPTCP schedules after each
/// call (`mptcp_sendmsg` ends in `__mptcp_push_pending`), so the call size
/// is part of what the kernel decides on; TCP does not see it.
pub const FILE_WRITE_CALL: u64 = 64 * 1024;

/// Bytes of the next write call of a file sender that has written
/// `written` bytes and has `want` more: on a stream socket `write_all` of a
/// 64 KiB buffer, so a call cut short by a full socket goes on with the rest
/// of the same buffer (calls end at multiples of `FILE_WRITE_CALL`); on a
/// message socket everything at once.
fn file_write_call(written: u64, want: u64, stream: bool) -> u64 {
    if stream {
        want.min(FILE_WRITE_CALL - written % FILE_WRITE_CALL)
    } else {
        want
    }
}

/// Download (or upload) of one file: connect at `start`, the sender writes
/// `size` bytes, done when the receiver has them all. Completion time runs
/// from `start` (the SYN) to the last byte delivered, as seed 002 measures.
pub struct FileApp {
    flow: FlowId,
    sender: Side,
    start: Nanos,
    size: u64,
    written: u64,
    started: bool,
    /// The client's request before the file (0: none); see `hello`.
    hello: u64,
    /// The sender may write: connected, and a downloading server has
    /// read the client's request.
    ready: bool,
    end: Option<Nanos>,
    label: String,
}

impl FileApp {
    pub fn new(flow: FlowId, sender: Side, start: Nanos, size: u64, label: String) -> Self {
        FileApp {
            flow,
            sender,
            start,
            size,
            written: 0,
            started: false,
            hello: 0,
            ready: false,
            end: None,
            label,
        }
    }

    /// The client writes `bytes` once connected, before anything else, as
    /// the emulator's agent writes its hello on every connection
    /// (`emu::agent::open`), and a downloading server writes the file only
    /// once it has read them, as the agent's server does (`serve`: it
    /// reads the hello, then writes). Over MPTCP the request is the
    /// client's first mapping, a 64-bit DSN, after which the server's
    /// DATA_ACKs are 64-bit and its data segments 4 bytes shorter (Linux
    /// net/mptcp/subflow.c `get_mapping_status` sets `msk->use_64bit_ack`;
    /// options.c `mptcp_established_options_dss` sizes the DATA_ACK from
    /// it; docs/mptcp.md "Option bytes").
    pub fn hello(mut self, bytes: u64) -> Self {
        self.hello = bytes;
        self
    }

    /// Bytes the receiver gets before the file: the request precedes an
    /// upload in the same byte stream.
    fn preamble(&self) -> u64 {
        if self.sender == Side::Client {
            self.hello
        } else {
            0
        }
    }

    /// Write what the socket takes, in calls of at most `FILE_WRITE_CALL`
    /// bytes on a stream socket, ending at multiples of it from the file's
    /// start, as the emulator's agent does; a
    /// message-oriented socket (SCTP, where a call is a message) gets the
    /// rest in one call.
    fn fill(&mut self, io: &mut AppIo) {
        if self.written >= self.size {
            return;
        }
        let stream = io.max_message(self.flow, self.sender).is_none();
        while self.written < self.size {
            let want = self.size - self.written;
            let call = file_write_call(self.written, want, stream);
            let n = io.write(self.flow, self.sender, call);
            self.written += n;
            if n < call {
                break;
            }
        }
        if self.written == self.size {
            io.close(self.flow, self.sender);
        }
    }
}

impl App for FileApp {
    fn start(&mut self, _io: &mut AppIo) {}

    fn on_event(&mut self, _flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        if matches!(ev, AppEvent::Connected) && side == Side::Client && self.hello > 0 {
            io.write(self.flow, Side::Client, self.hello);
        }
        match ev {
            AppEvent::Connected if side == self.sender => {
                // a server with a request to wait for starts at its arrival
                self.ready |= self.sender == Side::Client || self.hello == 0;
                if self.ready {
                    self.fill(io);
                }
            }
            AppEvent::Writable if side == self.sender && self.ready => self.fill(io),
            AppEvent::Delivered { total }
                if side == self.sender && !self.ready && total >= self.hello =>
            {
                self.ready = true;
                self.fill(io);
            }
            AppEvent::Delivered { total }
                if side != self.sender
                    && total >= self.size + self.preamble()
                    && self.end.is_none() =>
            {
                self.end = Some(io.now);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        if !self.started {
            self.started = true;
            io.connect(self.flow);
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        (!self.started).then_some(self.start)
    }

    fn is_done(&self) -> bool {
        self.end.is_some()
    }

    fn report(&self, rep: &mut Report) {
        rep.transfers.push((
            self.flow,
            Transfer {
                label: self.label.clone(),
                kind: "file",
                objects: 1,
                bytes: self.size,
                start: self.start,
                end: self.end,
            },
        ));
    }
}

/// A saturated sender: keeps the send buffer full from `start` on.
pub struct BulkApp {
    flow: FlowId,
    sender: Side,
    start: Nanos,
    started: bool,
    /// `write_all` of a `FILE_WRITE_CALL` buffer per call (the emulator's
    /// background sender) rather than everything in one call.
    calls: bool,
    /// Bytes written so far (where the current write call stands).
    written: u64,
    /// The client's hello before the data (0: none); see `hello`.
    hello: u64,
    /// The sender may write: connected, and a sending server has read the
    /// client's hello.
    ready: bool,
}

impl BulkApp {
    pub fn new(flow: FlowId, sender: Side, start: Nanos) -> Self {
        BulkApp {
            flow,
            sender,
            start,
            started: false,
            calls: false,
            written: 0,
            hello: 0,
            ready: true,
        }
    }

    /// The client writes `bytes` once connected, before the data, as the
    /// emulator's agent writes its 16-byte hello on every connection
    /// (`emu::agent::open`); an uploading client's data follows in the
    /// same stream, a downloading server writes once it has read them
    /// (the agent's `serve` reads the hello first), as `FileApp::hello`.
    pub fn hello(mut self, bytes: u64) -> Self {
        self.hello = bytes;
        self.ready = bytes == 0;
        self
    }

    /// Keep the send buffer full (see `with_write_calls`).
    fn fill(&mut self, io: &mut AppIo) {
        if !self.calls {
            io.write(self.flow, self.sender, BULK_CHUNK);
            return;
        }
        // write_all: calls until one is cut short (the writer blocks).
        loop {
            let call = file_write_call(self.written, BULK_CHUNK, true);
            let n = io.write(self.flow, self.sender, call);
            self.written += n;
            if n < call {
                break;
            }
        }
    }

    /// A writer that loops over 64 KiB `write` calls, as the emulator's
    /// background sender does (`write_all` of a 64 KiB buffer,
    /// crates/emu/src/background.rs `tcp_side`): a call the send buffer cut
    /// short is finished after `Writable` (a blocking `write` resumes in
    /// `sk_stream_wait_memory`), so calls end at multiples of 64 KiB
    /// (`file_write_call`). Each call ends in `tcp_push`, which matters for
    /// the send buffer's accounting (`mptlab_core::tcp::sndbuf`).
    pub fn with_write_calls(mut self) -> Self {
        self.calls = true;
        self
    }
}

/// Bytes a saturated writer offers per call (the endpoint takes what fits).
const BULK_CHUNK: u64 = 1 << 40;

impl App for BulkApp {
    fn start(&mut self, _io: &mut AppIo) {}

    fn on_event(&mut self, _flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        if matches!(ev, AppEvent::Connected) && side == Side::Client && self.hello > 0 {
            io.write(self.flow, Side::Client, self.hello);
        }
        if side != self.sender {
            return;
        }
        match ev {
            AppEvent::Connected => {
                // a server with a hello to wait for starts at its arrival
                self.ready |= self.sender == Side::Client || self.hello == 0;
                if self.ready {
                    self.fill(io);
                }
            }
            AppEvent::Writable if self.ready => self.fill(io),
            AppEvent::Delivered { total } if !self.ready && total >= self.hello => {
                self.ready = true;
                self.fill(io);
            }
            _ => {}
        }
    }

    /// The receiving side's events (one per segment) are all ignored,
    /// except a client's `Connected` when it writes a hello.
    fn listens(&self, side: Side) -> bool {
        side == self.sender || (self.hello > 0 && side == Side::Client)
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        if !self.started {
            self.started = true;
            io.connect(self.flow);
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        (!self.started).then_some(self.start)
    }

    fn is_done(&self) -> bool {
        false
    }

    fn report(&self, _rep: &mut Report) {}
}

/// Messages sent as UDP datagrams (a message larger than one datagram is
/// split); a message is delivered when all its datagrams arrived.
pub struct UdpApp {
    flow: FlowId,
    sender: Side,
    schedule: Box<dyn Schedule>,
    next: Option<(Nanos, u32)>,
    /// Per message: (first datagram seq, datagram count, received, bytes, send time, delivery time)
    msgs: Vec<(u64, u32, u32, u32, Nanos, Option<Nanos>)>,
    next_dgram: u64,
    /// Index of the oldest message that may still receive datagrams.
    low: usize,
    record: bool,
    jitter: Jitter,
    rows: Vec<MessageRecord>,
    /// Payload of a full datagram (1472 over IPv4, 1452 over IPv6).
    max_dgram: u32,
}

impl UdpApp {
    /// `record`: keep per-message rows (foreground); background flows only count.
    pub fn new(flow: FlowId, sender: Side, mut schedule: Box<dyn Schedule>, record: bool) -> Self {
        let next = schedule.next_message();
        UdpApp {
            flow,
            sender,
            schedule,
            next,
            msgs: Vec::new(),
            next_dgram: 0,
            low: 0,
            record,
            jitter: Jitter::default(),
            rows: Vec::new(),
            max_dgram: MAX_UDP_PAYLOAD,
        }
    }

    /// Split messages into datagrams that fit a 1500-byte packet of IP
    /// version `ip` (IPv4 unless set).
    pub fn ip(mut self, ip: IpVersion) -> Self {
        self.max_dgram = max_udp_payload(ip);
        self
    }
}

impl App for UdpApp {
    fn start(&mut self, io: &mut AppIo) {
        io.connect(self.flow);
    }

    fn on_event(&mut self, _flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        if side == self.sender || !self.record {
            return;
        }
        if let AppEvent::Datagram { seq, .. } = ev {
            // Find the message holding this datagram (datagrams of a flow
            // arrive in order on a FIFO path, so search forward from `low`).
            let mut i = self.low;
            while i < self.msgs.len() && self.msgs[i].0 + self.msgs[i].1 as u64 <= seq {
                i += 1;
            }
            if i < self.msgs.len() && self.msgs[i].0 <= seq {
                let m = &mut self.msgs[i];
                m.2 += 1;
                if m.2 == m.1 {
                    m.5 = Some(io.now);
                    self.jitter.update(m.4, io.now);
                    self.rows.push(MessageRecord {
                        flow: self.flow,
                        msg_id: i as u64,
                        bytes: m.3,
                        send_time: m.4,
                        delivery_time: Some(io.now),
                        jitter: Some(self.jitter.ns()),
                        refused: false,
                    });
                }
                self.low = i;
            }
        }
    }

    /// Only the receiver of a recorded (foreground) flow uses its events.
    fn listens(&self, side: Side) -> bool {
        side != self.sender && self.record
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        while let Some((t, bytes)) = self.next {
            if t > io.now {
                break;
            }
            let n = bytes.div_ceil(self.max_dgram).max(1);
            io.message_datagrams(self.flow, self.sender, t, bytes, n);
            if self.record {
                self.msgs.push((self.next_dgram, n, 0, bytes, t, None));
            }
            let mut left = bytes;
            for _ in 0..n {
                let len = left.min(self.max_dgram);
                io.write(self.flow, self.sender, len as u64);
                left -= len;
            }
            self.next_dgram += n as u64;
            self.next = self.schedule.next_message();
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        self.next.map(|(t, _)| t)
    }

    fn is_done(&self) -> bool {
        false
    }

    fn report(&self, rep: &mut Report) {
        rep.messages.extend(self.rows.iter().cloned());
        for (i, m) in self.msgs.iter().enumerate() {
            if m.5.is_none() {
                rep.messages.push(MessageRecord {
                    flow: self.flow,
                    msg_id: i as u64,
                    bytes: m.3,
                    send_time: m.4,
                    delivery_time: None,
                    jitter: None,
                    refused: false,
                });
            }
        }
    }
}

/// A web page load (seed 000 section 4.3.3): the traffic models' `Browser`
/// over up to `max_connections` flows, and an `HttpServerConn` per flow on the
/// server. Requests go up, responses come down. Each flow keeps a backlog of
/// bytes its send buffer has not yet taken.
pub struct WebApp {
    flows: Vec<FlowId>,
    start: Nanos,
    started: bool,
    browser: Browser,
    servers: Vec<HttpServerConn>,
    /// Unwritten bytes per flow: (client side, server side).
    backlog: Vec<(u64, u64)>,
    connected: Vec<(bool, bool)>,
    label: String,
    error: Option<String>,
}

impl WebApp {
    pub fn new(flows: Vec<FlowId>, start: Nanos, browser: Browser, label: String) -> Self {
        let n = flows.len();
        WebApp {
            flows,
            start,
            started: false,
            browser,
            servers: vec![HttpServerConn::new(); n],
            backlog: vec![(0, 0); n],
            connected: vec![(false, false); n],
            label,
            error: None,
        }
    }

    fn conn_of(&self, flow: FlowId) -> Option<usize> {
        self.flows.iter().position(|&f| f == flow)
    }

    fn act(&mut self, actions: Result<Vec<BrowserAction>, String>, io: &mut AppIo) {
        let actions = match actions {
            Ok(a) => a,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        for a in actions {
            match a {
                BrowserAction::OpenConnection(c) => match self.flows.get(c) {
                    Some(&f) => io.connect(f),
                    None => {
                        self.error.get_or_insert(format!(
                            "browser opened connection {c} but only {} exist",
                            self.flows.len()
                        ));
                    }
                },
                BrowserAction::SendRequest {
                    conn,
                    object,
                    request_bytes,
                    response_bytes,
                } => {
                    self.servers[conn].expect_request(object, request_bytes, response_bytes);
                    self.backlog[conn].0 += request_bytes as u64;
                    self.flush(conn, Side::Client, io);
                }
            }
        }
    }

    fn flush(&mut self, conn: usize, side: Side, io: &mut AppIo) {
        let (ok, left) = match side {
            Side::Client => (self.connected[conn].0, &mut self.backlog[conn].0),
            Side::Server => (self.connected[conn].1, &mut self.backlog[conn].1),
        };
        if ok && *left > 0 {
            *left -= io.write(self.flows[conn], side, *left);
        }
    }
}

impl App for WebApp {
    fn start(&mut self, _io: &mut AppIo) {}

    fn on_event(&mut self, flow: FlowId, side: Side, ev: AppEvent, io: &mut AppIo) {
        let Some(conn) = self.conn_of(flow) else {
            return;
        };
        match (side, ev) {
            (Side::Client, AppEvent::Connected) => {
                self.connected[conn].0 = true;
                let a = self.browser.on_connected(conn, io.now);
                self.act(a, io);
                self.flush(conn, Side::Client, io);
            }
            (Side::Server, AppEvent::Connected) => {
                self.connected[conn].1 = true;
                self.flush(conn, Side::Server, io);
            }
            (s, AppEvent::Writable) => self.flush(conn, s, io),
            (Side::Server, AppEvent::Delivered { total }) => {
                for r in self.servers[conn].on_request_bytes(total) {
                    self.backlog[conn].1 += r.response_bytes;
                }
                self.flush(conn, Side::Server, io);
            }
            (Side::Client, AppEvent::Delivered { total }) => {
                let a = self.browser.on_response_bytes(conn, total, io.now);
                self.act(a, io);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, io: &mut AppIo) {
        if !self.started {
            self.started = true;
            let a = self.browser.start(io.now);
            self.act(Ok(a), io);
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        (!self.started).then_some(self.start)
    }

    fn is_done(&self) -> bool {
        self.browser.is_done() || self.error.is_some()
    }

    fn error(&self) -> Option<String> {
        self.error.clone()
    }

    fn report(&self, rep: &mut Report) {
        let page = self.browser.page();
        rep.transfers.push((
            self.flows[0],
            Transfer {
                label: self.label.clone(),
                kind: "page",
                objects: page.objects.len() as u32,
                bytes: page.objects.iter().map(|&b| b as u64).sum(),
                start: self.start,
                end: self.browser.page_load_time().map(|t| self.start + t),
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_write_calls_end_at_multiples_of_64_kib() {
        assert_eq!(file_write_call(0, 1 << 20, true), 65_536);
        // a call cut short at 100 000 bytes goes on to 131 072
        assert_eq!(file_write_call(100_000, 1 << 20, true), 31_072);
        assert_eq!(file_write_call(131_072, 1 << 20, true), 65_536);
        assert_eq!(file_write_call(131_072, 1_000, true), 1_000);
        // SCTP: one call, one message
        assert_eq!(file_write_call(100_000, 1 << 20, false), 1 << 20);
    }
}
