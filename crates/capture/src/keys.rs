//! Secrets of the capture: MPTCP keys and nonces, initial sequence numbers
//! and timestamp offsets, all drawn from the run's seed by hashing (SHA-256
//! of a label, the seed and the identifying fields), so they look random,
//! are the same for every run with the same seed, and take nothing from the
//! simulator's random streams (which would change its results).

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// 64 pseudo-random bits for `label` and `parts` under `seed`.
pub fn draw(seed: u64, label: &str, parts: &[u64]) -> u64 {
    let mut h = Sha256::new();
    h.update(b"mptlab-capture/");
    h.update(label.as_bytes());
    h.update(seed.to_be_bytes());
    for p in parts {
        h.update(p.to_be_bytes());
    }
    let d = h.finalize();
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// RFC 8684 section 3.1: the token is the most significant 32 bits of
/// SHA-256(key), the initial data sequence number (IDSN) the least
/// significant 64 bits (key in network byte order).
pub fn token(key: u64) -> u32 {
    let d = Sha256::digest(key.to_be_bytes());
    u32::from_be_bytes(d[..4].try_into().expect("4 bytes"))
}

/// See [`token`]: the IDSN is the least significant 64 bits of SHA-256(key).
pub fn idsn(key: u64) -> u64 {
    let d = Sha256::digest(key.to_be_bytes());
    u64::from_be_bytes(d[24..32].try_into().expect("8 bytes"))
}

/// HMAC-SHA256 with the key `k1 || k2` (64-bit keys, network byte order)
/// over `msg` (RFC 8684 sections 3.2 and 3.4.1).
pub fn hmac(k1: u64, k2: u64, msg: &[u8]) -> [u8; 32] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&k1.to_be_bytes());
    key[8..].copy_from_slice(&k2.to_be_bytes());
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).expect("any key length");
    m.update(msg);
    m.finalize().into_bytes().into()
}

/// MP_JOIN HMAC (RFC 8684 section 3.2): the SYN/ACK of B carries
/// HMAC(Key=(Key-B+Key-A), Msg=(R-B+R-A)) truncated to its leftmost 64
/// bits; the third ACK of A carries HMAC(Key=(Key-A+Key-B), Msg=(R-A+R-B)).
/// Call with the sender's key and nonce first.
pub fn join_hmac(key_sender: u64, key_peer: u64, r_sender: u32, r_peer: u32) -> [u8; 32] {
    let mut msg = [0u8; 8];
    msg[..4].copy_from_slice(&r_sender.to_be_bytes());
    msg[4..].copy_from_slice(&r_peer.to_be_bytes());
    hmac(key_sender, key_peer, &msg)
}

/// ADD_ADDR HMAC (RFC 8684 section 3.4.1): HMAC(Key=(Key-A+Key-B),
/// Msg=(Address ID + IP address + port, two zero octets without a port)),
/// truncated to its rightmost 64 bits (Linux `add_addr_generate_hmac`).
pub fn add_addr_hmac(key_sender: u64, key_peer: u64, id: u8, addr: &[u8], port: u16) -> [u8; 8] {
    // Address ID, the address (4 bytes IPv4, 16 IPv6), the port.
    let mut msg = Vec::with_capacity(19);
    msg.push(id);
    msg.extend_from_slice(addr);
    msg.extend_from_slice(&port.to_be_bytes());
    let h = hmac(key_sender, key_peer, &msg);
    h[24..].try_into().expect("8 bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_depend_on_every_input() {
        let a = draw(1, "isn", &[1, 2]);
        assert_eq!(a, draw(1, "isn", &[1, 2]));
        assert_ne!(a, draw(2, "isn", &[1, 2]));
        assert_ne!(a, draw(1, "key", &[1, 2]));
        assert_ne!(a, draw(1, "isn", &[2, 1]));
    }

    #[test]
    fn token_and_idsn_are_the_two_ends_of_sha256() {
        // SHA-256 of the 8 zero bytes:
        // af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc
        assert_eq!(token(0), 0xaf55_70f5);
        assert_eq!(idsn(0), 0xe5b2_328d_e0e8_3dfc);
        let d = Sha256::digest([0u8; 8]);
        assert_eq!(idsn(0).to_be_bytes(), d[24..32]);
    }

    #[test]
    fn hmac_is_hmac_sha256_with_the_concatenated_keys() {
        // python3: hmac.new((1).to_bytes(8,'big')+(2).to_bytes(8,'big'), b"x", sha256)
        let h = hmac(1, 2, b"x");
        assert_eq!(h[..4], [0xb0, 0x35, 0x44, 0xcb]);
        assert_eq!(h[28..], [0x67, 0xdf, 0xda, 0xcd]);
        assert_ne!(join_hmac(1, 2, 3, 4), join_hmac(2, 1, 4, 3));
    }
}
