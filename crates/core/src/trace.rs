//! Mahimahi traces.
