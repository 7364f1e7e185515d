//! Loss models.
