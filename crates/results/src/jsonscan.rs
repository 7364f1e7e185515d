//! A validating JSON scanner that finds where values end without building
//! them (RFC 8259 grammar: objects, arrays, strings with their escapes,
//! numbers, `true` / `false` / `null`).
//!
//! Why: a sweep's merge reads every run file back and needs one small table
//! of each (`paths`); the rest, mostly the `messages` table of a 600 s game
//! (about 0.5 MB of number arrays per run), only has to be checked and
//! skipped. serde_json's `RawValue` skips by parsing every number (and
//! `decode_run_tables` went over each table twice), about 19 M instructions
//! per gaming run file, more than the whole simulation of a gaming run
//! without background traffic; this scanner takes a few instructions a byte.
//! UTF-8 validity is the caller's (`std::str::from_utf8` of the whole file).

/// Where scanning stopped on malformed input (a byte offset).
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed(pub usize);

/// Nesting deeper than this is refused (serde_json's default limit is 128).
const MAX_DEPTH: usize = 128;

#[inline]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The first non-whitespace position at or after `i`.
pub fn ws(b: &[u8], i: usize) -> usize {
    skip_ws(b, i)
}

/// The end (exclusive) of the string whose opening quote is at `i`.
pub fn string(b: &[u8], i: usize) -> Result<usize, Malformed> {
    debug_assert_eq!(b.get(i), Some(&b'"'));
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return Err(Malformed(j)),
            Some(b'"') => return Ok(j + 1),
            Some(b'\\') => match b.get(j + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                Some(b'u') => {
                    let hex = b.get(j + 2..j + 6).ok_or(Malformed(j))?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(Malformed(j));
                    }
                    j += 6;
                }
                _ => return Err(Malformed(j)),
            },
            Some(&c) if c < 0x20 => return Err(Malformed(j)),
            Some(_) => j += 1,
        }
    }
}

#[inline]
fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// The end of the number starting at `i`:
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn number(b: &[u8], i: usize) -> Result<usize, Malformed> {
    let mut j = i;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    match b.get(j) {
        Some(b'0') => j += 1,
        Some(b'1'..=b'9') => j = digits(b, j + 1),
        _ => return Err(Malformed(j)),
    }
    if b.get(j) == Some(&b'.') {
        let k = digits(b, j + 1);
        if k == j + 1 {
            return Err(Malformed(k));
        }
        j = k;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let k = digits(b, j);
        if k == j {
            return Err(Malformed(k));
        }
        j = k;
    }
    Ok(j)
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Result<usize, Malformed> {
    if b.get(i..i + word.len()) == Some(word) {
        Ok(i + word.len())
    } else {
        Err(Malformed(i))
    }
}

/// The end (exclusive) of the JSON value starting at `i` (no leading
/// whitespace), nested `depth` deep.
pub fn value(b: &[u8], i: usize, depth: usize) -> Result<usize, Malformed> {
    value_at(b, i, depth)
}

fn value_at(b: &[u8], i: usize, depth: usize) -> Result<usize, Malformed> {
    match b.get(i) {
        Some(b'"') => string(b, i),
        Some(b'{') => object(b, i, depth + 1, |_, v| value_at(b, v, depth + 1)),
        Some(b'[') => array(b, i, depth + 1),
        Some(b't') => literal(b, i, b"true"),
        Some(b'f') => literal(b, i, b"false"),
        Some(b'n') => literal(b, i, b"null"),
        Some(b'-' | b'0'..=b'9') => number(b, i),
        _ => Err(Malformed(i)),
    }
}

/// Character classes of the number-run automaton (`number_run`).
const C_ZERO: u8 = 0;
const C_DIGIT: u8 = 1;
const C_MINUS: u8 = 2;
const C_PLUS: u8 = 3;
const C_DOT: u8 = 4;
const C_E: u8 = 5;
const C_COMMA: u8 = 6;
const C_OTHER: u8 = 7;

static CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    t[b'0' as usize] = C_ZERO;
    let mut d = b'1';
    while d <= b'9' {
        t[d as usize] = C_DIGIT;
        d += 1;
    }
    t[b'-' as usize] = C_MINUS;
    t[b'+' as usize] = C_PLUS;
    t[b'.' as usize] = C_DOT;
    t[b'e' as usize] = C_E;
    t[b'E' as usize] = C_E;
    t[b',' as usize] = C_COMMA;
    t
};

// States: a number's grammar (RFC 8259 section 6), numbers separated by
// bare commas. `DONE` (a number ended, another character follows) and
// `OUT` (after a comma, no number follows) leave the run; `BAD` is an error.
const S_START: u8 = 0;
const S_MINUS: u8 = 1;
const S_ZERO: u8 = 2;
const S_INT: u8 = 3;
const S_DOT: u8 = 4;
const S_FRAC: u8 = 5;
const S_E: u8 = 6;
const S_ESIGN: u8 = 7;
const S_EXP: u8 = 8;
const DONE: u8 = 9;
const OUT: u8 = 10;
const BAD: u8 = 11;

/// Transitions, by state and class (0 1-9 - + . e , other).
static NEXT: [[u8; 8]; 9] = [
    /* START */ [S_ZERO, S_INT, S_MINUS, OUT, OUT, OUT, OUT, OUT],
    /* MINUS */ [S_ZERO, S_INT, BAD, BAD, BAD, BAD, BAD, BAD],
    /* ZERO  */ [BAD, BAD, BAD, BAD, S_DOT, S_E, S_START, DONE],
    /* INT   */ [S_INT, S_INT, BAD, BAD, S_DOT, S_E, S_START, DONE],
    /* DOT   */ [S_FRAC, S_FRAC, BAD, BAD, BAD, BAD, BAD, BAD],
    /* FRAC  */ [S_FRAC, S_FRAC, BAD, BAD, BAD, S_E, S_START, DONE],
    /* E     */ [S_EXP, S_EXP, S_ESIGN, S_ESIGN, BAD, BAD, BAD, BAD],
    /* ESIGN */ [S_EXP, S_EXP, BAD, BAD, BAD, BAD, BAD, BAD],
    /* EXP   */ [S_EXP, S_EXP, BAD, BAD, BAD, BAD, S_START, DONE],
];

/// From a number's first character at `i`: consume numbers separated by
/// bare commas (`0,1,2.5,-3e4` in an array of numbers, most of a run file)
/// in one table-driven loop. Returns the position reached and whether it is
/// after a complete number (`true`) or after a comma (`false`: a value
/// other than a number, or whitespace, follows).
fn number_run(b: &[u8], i: usize) -> Result<(usize, bool), Malformed> {
    let mut st = S_START;
    let mut j = i;
    while let Some(&c) = b.get(j) {
        let nx = NEXT[st as usize][CLASS[c as usize] as usize];
        if nx >= DONE {
            return match nx {
                DONE => Ok((j, true)),
                OUT => Ok((j, false)),
                _ => Err(Malformed(j)),
            };
        }
        st = nx;
        j += 1;
    }
    // the input ended inside the run: malformed (an array must close)
    Err(Malformed(j))
}

fn array(b: &[u8], i: usize, depth: usize) -> Result<usize, Malformed> {
    if depth > MAX_DEPTH {
        return Err(Malformed(i));
    }
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Ok(j + 1);
    }
    loop {
        // an element starts at j
        if matches!(b.get(j), Some(b'0'..=b'9' | b'-')) {
            let (k, complete) = number_run(b, j)?;
            j = k;
            if !complete {
                // after a comma: the next element is not a number
                j = skip_ws(b, j);
                continue;
            }
        } else {
            j = value_at(b, j, depth)?;
        }
        j = skip_ws(b, j);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b']') => return Ok(j + 1),
            _ => return Err(Malformed(j)),
        }
    }
}

/// Scan the object whose `{` is at `i`, calling `member(key, value_start)`
/// for each member (`key` is the raw string with its quotes), which scans
/// the value (with [`value`], or [`elements`] / [`object`] to look inside)
/// and returns its end; returns the object's end.
pub fn object(
    b: &[u8],
    i: usize,
    depth: usize,
    mut member: impl FnMut(&[u8], usize) -> Result<usize, Malformed>,
) -> Result<usize, Malformed> {
    if depth > MAX_DEPTH {
        return Err(Malformed(i));
    }
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b'}') {
        return Ok(j + 1);
    }
    loop {
        if b.get(j) != Some(&b'"') {
            return Err(Malformed(j));
        }
        let k = string(b, j)?;
        let key = &b[j..k];
        j = skip_ws(b, k);
        if b.get(j) != Some(&b':') {
            return Err(Malformed(j));
        }
        let start = skip_ws(b, j + 1);
        let end = member(key, start)?;
        j = skip_ws(b, end);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b'}') => return Ok(j + 1),
            _ => return Err(Malformed(j)),
        }
    }
}

/// Call `element(start)` for each element of the array whose `[` is at
/// `i`, which scans the element and returns its end; returns the array's
/// end.
pub fn elements(
    b: &[u8],
    i: usize,
    mut element: impl FnMut(usize) -> Result<usize, Malformed>,
) -> Result<usize, Malformed> {
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Ok(j + 1);
    }
    loop {
        let end = element(j)?;
        j = skip_ws(b, end);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b']') => return Ok(j + 1),
            _ => return Err(Malformed(j)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value serde_json accepts is scanned to its end, and every
    /// malformed one is refused, on a set of tricky inputs.
    #[test]
    fn agrees_with_serde_json() {
        let good = [
            r#"0"#,
            r#"-0.5e+10"#,
            r#"1E5"#,
            r#"[]"#,
            r#"[ 1 , 2 ,3 ]"#,
            r#"{}"#,
            r#"{ "a" : [ { "b" : null } , true , false , "x\"y\\\u00e9" ] }"#,
            r#"[[[[]]],{"":""}]"#,
            r#"[0,1,-2,3.25,4e5,-0.5E-7,null,"s",8 , 9,[1,2],10]"#,
            "[1,\n2 ,3]",
            "\"caf\u{e9}\"",
        ];
        for g in good {
            assert!(serde_json::from_str::<serde_json::Value>(g).is_ok(), "{g}");
            assert_eq!(value(g.as_bytes(), 0, 0), Ok(g.len()), "{g}");
        }
        let bad = [
            "01",
            "-",
            "1.",
            "1e",
            ".5",
            "+1",
            "[1,]",
            "[1 2]",
            "{\"a\"}",
            "{\"a\":1,}",
            "{a:1}",
            "tru",
            "nul",
            "\"abc",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"a\u{1}b\"",
            "[",
            "{\"a\":[1}",
            "[1,2",
            "[1,2,]",
            "[01]",
            "[1.e5]",
            "[1e+]",
            "[-]",
            "[1,,2]",
            "[1-2]",
            "[0x1]",
        ];
        for x in bad {
            assert!(
                serde_json::from_str::<serde_json::Value>(x).is_err(),
                "serde accepts {x}"
            );
            // refused, or stopped before the end (trailing garbage)
            assert!(
                value(x.as_bytes(), 0, 0).map_or(true, |e| e < x.len()),
                "scanner accepts {x}"
            );
        }
    }

    #[test]
    fn members_and_elements_are_reported_in_order() {
        let s = br#"{"x": 1, "tables": [ {"name":"a"} , [2] ]}"#;
        let mut keys = Vec::new();
        let mut els = Vec::new();
        let end = object(s, 0, 1, |k, a| {
            let e = if k == b"\"tables\"" {
                elements(s, a, |x| {
                    let y = value(s, x, 2)?;
                    els.push(std::str::from_utf8(&s[x..y]).unwrap().to_string());
                    Ok(y)
                })?
            } else {
                value(s, a, 1)?
            };
            keys.push((String::from_utf8(k.to_vec()).unwrap(), a, e));
            Ok(e)
        })
        .unwrap();
        assert_eq!(end, s.len());
        assert_eq!(keys[0], ("\"x\"".into(), 6, 7));
        assert_eq!(keys[1].2, s.len() - 1);
        assert_eq!(els, vec![r#"{"name":"a"}"#, "[2]"]);
    }
}
