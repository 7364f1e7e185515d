//! Traffic models.
