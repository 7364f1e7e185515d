//! TCP endpoint (sans-IO).
