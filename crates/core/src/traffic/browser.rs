//! A sans-IO browser loading one [`Page`] over persistent HTTP/1.1
//! connections, as in seed 000 ("6 concurrent connections over HTTP/1.1"),
//! and the matching server-side request framer.
//!
//! Behaviour: open connection 0 and fetch the HTML document; when it has
//! arrived, fetch the remaining objects in page order over up to
//! `max_connections` connections (connection 0 plus new ones), one
//! outstanding request per connection (no pipelining), each next object going
//! to the lowest-numbered idle connection. The page is done when the last
//! response completes.
//!
//! A "connection" is an index the driver maps to whatever it likes: a TCP
//! connection, an MPTCP connection, or an SCTP association or stream. The
//! simulator carries no payload, so the driver passes the request and response
//! sizes from `SendRequest` to [`HttpServerConn`] out of band; both sides then
//! find message boundaries from cumulative byte counts alone.

use std::collections::VecDeque;

use super::invalid;
use super::web::Page;
use crate::time::Nanos;

/// Browser parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserConfig {
    /// Most connections open at once. Default 6 (seed 000 4.3.3; also the
    /// per-host limit of common browsers).
    pub max_connections: usize,
    /// Bytes of one GET request (request line plus headers). Default 350
    /// (assumption: a typical GET without large cookies is a few hundred bytes).
    pub request_bytes: u32,
    /// Bytes of response status line and headers added to every object.
    /// Default 250 (assumption, same order as the request).
    pub response_header_bytes: u32,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            max_connections: 6,
            request_bytes: 350,
            response_header_bytes: 250,
        }
    }
}

/// What the driver must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserAction {
    /// Open connection `conn`; call `on_connected` when established.
    OpenConnection(usize),
    /// Write `request_bytes` on `conn`; the server answers with `response_bytes`.
    SendRequest {
        conn: usize,
        object: usize,
        request_bytes: u32,
        response_bytes: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conn {
    Connecting,
    Idle,
    /// Waiting for `object`; complete when cumulative response bytes reach `until`.
    Busy {
        object: usize,
        until: u64,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectTiming {
    pub requested: Option<Nanos>,
    pub completed: Option<Nanos>,
    pub conn: Option<usize>,
}

/// The page-load state machine.
#[derive(Clone, Debug)]
pub struct Browser {
    page: Page,
    cfg: BrowserConfig,
    conns: Vec<Conn>,
    /// cumulative response bytes expected so far per connection
    expected: Vec<u64>,
    next_object: usize,
    html_done: bool,
    completed: usize,
    started: Option<Nanos>,
    done_at: Option<Nanos>,
    timing: Vec<ObjectTiming>,
}

impl Browser {
    pub fn new(page: Page, cfg: BrowserConfig) -> Result<Self, String> {
        if cfg.max_connections == 0 {
            return Err(invalid("browser", "max_connections must be > 0"));
        }
        if page.objects.is_empty() {
            return Err(invalid("browser", "page has no objects"));
        }
        let n = page.objects.len();
        Ok(Browser {
            page,
            cfg,
            conns: Vec::new(),
            expected: Vec::new(),
            next_object: 0,
            html_done: false,
            completed: 0,
            started: None,
            done_at: None,
            timing: vec![ObjectTiming::default(); n],
        })
    }

    /// Begin the page load: opens connection 0.
    pub fn start(&mut self, now: Nanos) -> Vec<BrowserAction> {
        if self.started.is_some() {
            return Vec::new();
        }
        self.started = Some(now);
        self.open(1)
    }

    /// Connection `conn` is established.
    pub fn on_connected(&mut self, conn: usize, now: Nanos) -> Result<Vec<BrowserAction>, String> {
        match self.conns.get(conn) {
            Some(Conn::Connecting) => self.conns[conn] = Conn::Idle,
            _ => {
                return Err(invalid(
                    "browser",
                    format!("on_connected for connection {conn} that is not connecting"),
                ))
            }
        }
        Ok(self.dispatch(now))
    }

    /// The response outstanding on `conn` has fully arrived.
    pub fn on_response_complete(
        &mut self,
        conn: usize,
        now: Nanos,
    ) -> Result<Vec<BrowserAction>, String> {
        let object = match self.conns.get(conn) {
            Some(Conn::Busy { object, .. }) => *object,
            _ => {
                return Err(invalid(
                    "browser",
                    format!("response complete on connection {conn} with no request"),
                ))
            }
        };
        self.conns[conn] = Conn::Idle;
        self.timing[object].completed = Some(now);
        self.completed += 1;
        let mut actions = Vec::new();
        if object == 0 {
            self.html_done = true;
            // now fetch the rest over as many connections as are useful
            let want = self.cfg.max_connections.min(self.page.objects.len() - 1);
            actions.extend(self.open(want));
        }
        if self.completed == self.page.objects.len() {
            self.done_at = Some(now);
        }
        actions.extend(self.dispatch(now));
        Ok(actions)
    }

    /// Driver convenience: the cumulative response bytes received on `conn`
    /// are `cumulative`; completes the outstanding response when reached.
    pub fn on_response_bytes(
        &mut self,
        conn: usize,
        cumulative: u64,
        now: Nanos,
    ) -> Result<Vec<BrowserAction>, String> {
        match self.conns.get(conn) {
            Some(Conn::Busy { until, .. }) if cumulative >= *until => {
                self.on_response_complete(conn, now)
            }
            _ => Ok(Vec::new()),
        }
    }

    pub fn is_done(&self) -> bool {
        self.done_at.is_some()
    }

    /// Time from `start` to the completion of the last response.
    pub fn page_load_time(&self) -> Option<Nanos> {
        Some(self.done_at? - self.started?)
    }

    /// Connections opened so far (never more than `max_connections`).
    pub fn connections_opened(&self) -> usize {
        self.conns.len()
    }

    /// Per-object request and completion times, indexed like `page.objects`.
    pub fn object_timing(&self) -> &[ObjectTiming] {
        &self.timing
    }

    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Open connections until `total` exist.
    fn open(&mut self, total: usize) -> Vec<BrowserAction> {
        let mut out = Vec::new();
        while self.conns.len() < total.min(self.cfg.max_connections) {
            out.push(BrowserAction::OpenConnection(self.conns.len()));
            self.conns.push(Conn::Connecting);
            self.expected.push(0);
        }
        out
    }

    /// Give pending objects to idle connections, lowest index first.
    fn dispatch(&mut self, now: Nanos) -> Vec<BrowserAction> {
        let mut out = Vec::new();
        // before the HTML has arrived only the HTML may be requested
        let limit = if self.html_done {
            self.page.objects.len()
        } else {
            1
        };
        while self.next_object < limit {
            let Some(conn) = self.conns.iter().position(|c| *c == Conn::Idle) else {
                break;
            };
            let object = self.next_object;
            self.next_object += 1;
            let response_bytes =
                self.page.objects[object] as u64 + self.cfg.response_header_bytes as u64;
            self.expected[conn] += response_bytes;
            self.conns[conn] = Conn::Busy {
                object,
                until: self.expected[conn],
            };
            self.timing[object] = ObjectTiming {
                requested: Some(now),
                completed: None,
                conn: Some(conn),
            };
            out.push(BrowserAction::SendRequest {
                conn,
                object,
                request_bytes: self.cfg.request_bytes,
                response_bytes,
            });
        }
        out
    }
}

/// A request the server will see, in order, on one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub object: usize,
    pub response_bytes: u64,
}

/// Server side of one connection: frames requests by cumulative byte count.
#[derive(Clone, Debug, Default)]
pub struct HttpServerConn {
    /// (cumulative request bytes at which the request is whole, response)
    pending: VecDeque<(u64, Response)>,
    expected: u64,
}

impl HttpServerConn {
    pub fn new() -> Self {
        Self::default()
    }

    /// Tell the server what the client's `SendRequest` carried (out of band,
    /// since simulated packets have no payload). Call in sending order.
    pub fn expect_request(&mut self, object: usize, request_bytes: u32, response_bytes: u64) {
        self.expected += request_bytes as u64;
        self.pending.push_back((
            self.expected,
            Response {
                object,
                response_bytes,
            },
        ));
    }

    /// `cumulative` request bytes have arrived in order; returns the
    /// responses to write now, in order.
    pub fn on_request_bytes(&mut self, cumulative: u64) -> Vec<Response> {
        let mut out = Vec::new();
        while let Some(&(end, r)) = self.pending.front() {
            if cumulative < end {
                break;
            }
            self.pending.pop_front();
            out.push(r);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// A toy driver: each connection has a fixed RTT and rate; events in a heap.
    fn run(page: Page, cfg: BrowserConfig, seed: u64) -> (Browser, Vec<usize>) {
        let mut rng = SimRng::from_u64(seed);
        let mut b = Browser::new(page, cfg.clone()).unwrap();
        let mut q: BinaryHeap<Reverse<(Nanos, u8, usize)>> = BinaryHeap::new();
        let mut servers: Vec<HttpServerConn> = Vec::new();
        let mut rx: Vec<u64> = Vec::new();
        let mut order = Vec::new();
        let mut max_busy = 0;
        let mut handle = |acts: Vec<BrowserAction>,
                          now: Nanos,
                          q: &mut BinaryHeap<_>,
                          servers: &mut Vec<HttpServerConn>,
                          rx: &mut Vec<u64>,
                          order: &mut Vec<usize>| {
            for a in acts {
                match a {
                    BrowserAction::OpenConnection(c) => {
                        assert_eq!(c, servers.len());
                        servers.push(HttpServerConn::new());
                        rx.push(0);
                        q.push(Reverse((now + 20_000_000, 0u8, c)));
                    }
                    BrowserAction::SendRequest {
                        conn,
                        object,
                        request_bytes,
                        response_bytes,
                    } => {
                        order.push(object);
                        servers[conn].expect_request(object, request_bytes, response_bytes);
                        let got = servers[conn].on_request_bytes(u64::MAX);
                        assert_eq!(got.len(), 1);
                        rx[conn] += got[0].response_bytes;
                        let d = 10_000_000 + rng.below(5_000_000) + got[0].response_bytes * 800;
                        q.push(Reverse((now + d, 1u8, conn)));
                    }
                }
            }
        };
        let acts = b.start(0);
        handle(acts, 0, &mut q, &mut servers, &mut rx, &mut order);
        while let Some(Reverse((now, kind, c))) = q.pop() {
            assert!(!b.is_done());
            let acts = if kind == 0 {
                b.on_connected(c, now).unwrap()
            } else {
                b.on_response_bytes(c, rx[c], now).unwrap()
            };
            handle(acts, now, &mut q, &mut servers, &mut rx, &mut order);
            let busy = b
                .conns
                .iter()
                .filter(|c| matches!(c, Conn::Busy { .. }))
                .count();
            max_busy = max_busy.max(busy);
            if b.is_done() {
                assert_eq!(b.page_load_time(), Some(now));
                assert!(q.is_empty(), "page done with events outstanding");
            }
        }
        assert!(max_busy <= cfg.max_connections);
        (b, order)
    }

    #[test]
    fn loads_every_object_once_html_first() {
        for p in super::super::web::presets() {
            let page = Page::preset(p.name, 3).unwrap();
            let (b, order) = run(page, BrowserConfig::default(), 1);
            assert!(b.is_done());
            assert!(b.connections_opened() <= 6);
            assert_eq!(order[0], 0);
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (0..p.objects).collect::<Vec<_>>());
            // nothing else was requested before the HTML completed
            let t = b.object_timing();
            let html_done = t[0].completed.unwrap();
            assert!(t[1..].iter().all(|o| o.requested.unwrap() >= html_done));
            let last = t.iter().map(|o| o.completed.unwrap()).max().unwrap();
            assert_eq!(b.page_load_time(), Some(last));
        }
    }

    #[test]
    fn small_pages_open_only_needed_connections() {
        let (b, _) = run(
            Page::from_sizes("p", &[1000, 10, 10]).unwrap(),
            BrowserConfig::default(),
            2,
        );
        assert_eq!(b.connections_opened(), 2);
        let (b, _) = run(
            Page::from_sizes("p", &[1000]).unwrap(),
            BrowserConfig::default(),
            2,
        );
        assert_eq!(b.connections_opened(), 1);
        let (b, _) = run(
            Page::preset("amazon", 0).unwrap(),
            BrowserConfig {
                max_connections: 1,
                ..Default::default()
            },
            2,
        );
        assert_eq!(b.connections_opened(), 1);
    }

    #[test]
    fn response_sizes_include_headers() {
        let mut b = Browser::new(
            Page::from_sizes("p", &[1000, 10]).unwrap(),
            BrowserConfig::default(),
        )
        .unwrap();
        assert_eq!(b.start(0), vec![BrowserAction::OpenConnection(0)]);
        let a = b.on_connected(0, 5).unwrap();
        assert_eq!(
            a,
            vec![BrowserAction::SendRequest {
                conn: 0,
                object: 0,
                request_bytes: 350,
                response_bytes: 1250
            }]
        );
        assert!(b.on_response_bytes(0, 1249, 6).unwrap().is_empty());
        let a = b.on_response_bytes(0, 1250, 7).unwrap();
        // conn 0 is reused at once; no second connection for one object
        assert_eq!(
            a,
            vec![BrowserAction::SendRequest {
                conn: 0,
                object: 1,
                request_bytes: 350,
                response_bytes: 260
            }]
        );
        assert!(b.on_response_bytes(0, 1509, 8).unwrap().is_empty());
        b.on_response_bytes(0, 1510, 9).unwrap();
        assert_eq!(b.page_load_time(), Some(9));
    }

    #[test]
    fn misuse_is_an_error_not_a_panic() {
        let mut b = Browser::new(
            Page::from_sizes("p", &[1]).unwrap(),
            BrowserConfig::default(),
        )
        .unwrap();
        assert!(b.on_connected(3, 0).is_err());
        assert!(b.on_response_complete(0, 0).is_err());
        assert!(Browser::new(
            Page::from_sizes("p", &[1]).unwrap(),
            BrowserConfig {
                max_connections: 0,
                ..Default::default()
            }
        )
        .is_err());
    }

    #[test]
    fn server_frames_requests_by_bytes() {
        let mut s = HttpServerConn::new();
        s.expect_request(0, 350, 1000);
        s.expect_request(4, 350, 20);
        assert!(s.on_request_bytes(349).is_empty());
        assert_eq!(
            s.on_request_bytes(350),
            vec![Response {
                object: 0,
                response_bytes: 1000
            }]
        );
        assert_eq!(
            s.on_request_bytes(700),
            vec![Response {
                object: 4,
                response_bytes: 20
            }]
        );
        assert!(s.on_request_bytes(800).is_empty());
    }
}
