//! Application-side helpers shared by drivers (filled in with the traffic models).
