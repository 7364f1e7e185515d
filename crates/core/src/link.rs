//! Link model (rate, delay, queue, loss, traces, outages).
