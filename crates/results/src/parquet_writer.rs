//! A small Parquet writer (no dependencies): one row group, uncompressed,
//! PLAIN-encoded values, every column OPTIONAL with RLE definition levels,
//! data page v1, Thrift compact protocol metadata.
//!
//! Column types: u64 -> INT64 with INTEGER(64, unsigned) (+ UINT_64), i64 ->
//! INT64, f64 -> DOUBLE, string -> BYTE_ARRAY with STRING (+ UTF8), bool ->
//! BOOLEAN. Written against the format spec
//! (<https://github.com/apache/parquet-format>, `parquet.thrift`) and checked
//! with pyarrow in the tests.

use crate::table::{ColumnData, Table};
use std::io::Write;

/// Values per data page.
const PAGE_ROWS: usize = 64 * 1024;

const MAGIC: &[u8; 4] = b"PAR1";

// parquet.thrift enums
const TYPE_BOOLEAN: i32 = 0;
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const REPETITION_OPTIONAL: i32 = 1;
const CONVERTED_UTF8: i32 = 0;
const CONVERTED_UINT_64: i32 = 14;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;

/// Thrift compact protocol encoder (only what the metadata needs).
struct Compact {
    buf: Vec<u8>,
    last_field: Vec<i16>,
}

// compact protocol type ids
const CT_TRUE: u8 = 1;
const CT_FALSE: u8 = 2;
const CT_BYTE: u8 = 3;
const CT_I32: u8 = 5;
const CT_I64: u8 = 6;
const CT_BINARY: u8 = 8;
const CT_LIST: u8 = 9;
const CT_STRUCT: u8 = 12;

impl Compact {
    fn new() -> Self {
        Compact {
            buf: Vec::new(),
            last_field: vec![0],
        }
    }
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }
    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }
    fn field(&mut self, id: i16, ty: u8) {
        let last = *self.last_field.last().expect("inside a struct");
        let delta = id - last;
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.zigzag(id as i64);
        }
        *self.last_field.last_mut().expect("inside a struct") = id;
    }
    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, CT_I32);
        self.zigzag(v as i64);
    }
    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, CT_I64);
        self.zigzag(v);
    }
    fn byte(&mut self, id: i16, v: i8) {
        self.field(id, CT_BYTE);
        self.buf.push(v as u8);
    }
    fn bool(&mut self, id: i16, v: bool) {
        self.field(id, if v { CT_TRUE } else { CT_FALSE });
    }
    fn binary_raw(&mut self, b: &[u8]) {
        self.varint(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    fn string(&mut self, id: i16, s: &str) {
        self.field(id, CT_BINARY);
        self.binary_raw(s.as_bytes());
    }
    fn list_header(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, CT_LIST);
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xF0 | elem);
            self.varint(n as u64);
        }
    }
    /// Begin a struct that is a field (`Some(id)`) or a list element (`None`).
    fn begin(&mut self, id: Option<i16>) {
        if let Some(id) = id {
            self.field(id, CT_STRUCT);
        }
        self.last_field.push(0);
    }
    fn end(&mut self) {
        self.buf.push(0);
        self.last_field.pop();
    }
}

/// RLE/bit-packing hybrid encoding of bit-width-1 definition levels, as RLE
/// runs, prefixed with its 4-byte length (data page v1).
fn def_levels(defs: impl Iterator<Item = bool>) -> Vec<u8> {
    let mut enc = Compact::new();
    let mut run: Option<(bool, u64)> = None;
    let flush = |enc: &mut Compact, r: (bool, u64)| {
        enc.varint(r.1 << 1);
        enc.buf.push(r.0 as u8);
    };
    for d in defs {
        run = match run {
            Some((v, n)) if v == d => Some((v, n + 1)),
            Some(r) => {
                flush(&mut enc, r);
                Some((d, 1))
            }
            None => Some((d, 1)),
        };
    }
    if let Some(r) = run {
        flush(&mut enc, r);
    }
    let mut out = (enc.buf.len() as u32).to_le_bytes().to_vec();
    out.extend(enc.buf);
    out
}

/// PLAIN encoding of the non-null values of rows `r` of a column.
fn plain(c: &ColumnData, r: std::ops::Range<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    match c {
        ColumnData::U64(v) => v[r]
            .iter()
            .flatten()
            .for_each(|x| out.extend(x.to_le_bytes())),
        ColumnData::I64(v) => v[r]
            .iter()
            .flatten()
            .for_each(|x| out.extend(x.to_le_bytes())),
        ColumnData::F64(v) => v[r]
            .iter()
            .flatten()
            .for_each(|x| out.extend(x.to_le_bytes())),
        ColumnData::Str(v) => v[r].iter().flatten().for_each(|s| {
            out.extend((s.len() as u32).to_le_bytes());
            out.extend(s.as_bytes());
        }),
        ColumnData::Bool(v) => {
            let bits: Vec<bool> = v[r].iter().flatten().copied().collect();
            for chunk in bits.chunks(8) {
                out.push(
                    chunk
                        .iter()
                        .enumerate()
                        .fold(0u8, |b, (i, &x)| b | ((x as u8) << i)),
                );
            }
        }
    }
    out
}

fn is_some(c: &ColumnData, i: usize) -> bool {
    match c {
        ColumnData::U64(v) => v[i].is_some(),
        ColumnData::I64(v) => v[i].is_some(),
        ColumnData::F64(v) => v[i].is_some(),
        ColumnData::Str(v) => v[i].is_some(),
        ColumnData::Bool(v) => v[i].is_some(),
    }
}

fn physical(c: &ColumnData) -> i32 {
    match c {
        ColumnData::U64(_) | ColumnData::I64(_) => TYPE_INT64,
        ColumnData::F64(_) => TYPE_DOUBLE,
        ColumnData::Str(_) => TYPE_BYTE_ARRAY,
        ColumnData::Bool(_) => TYPE_BOOLEAN,
    }
}

struct ChunkMeta {
    offset: u64,
    size: u64,
}

/// Write `t` as a Parquet file.
pub fn write_parquet<W: Write>(t: &Table, mut w: W) -> Result<(), String> {
    let e = |x: std::io::Error| format!("parquet: table `{}`: {x}", t.name);
    let rows = t.num_rows();
    let mut pos: u64 = 0;
    w.write_all(MAGIC).map_err(e)?;
    pos += 4;
    let mut chunks = Vec::new();
    for c in t.columns() {
        let offset = pos;
        let mut start = 0;
        loop {
            let end = (start + PAGE_ROWS).min(rows);
            let mut page = def_levels((start..end).map(|i| is_some(&c.data, i)));
            page.extend(plain(&c.data, start..end));
            let size = i32::try_from(page.len())
                .map_err(|_| format!("parquet: table `{}`: page too large", t.name))?;
            let mut h = Compact::new();
            h.i32(1, PAGE_DATA);
            h.i32(2, size);
            h.i32(3, size);
            h.begin(Some(5));
            h.i32(1, (end - start) as i32);
            h.i32(2, ENCODING_PLAIN);
            h.i32(3, ENCODING_RLE);
            h.i32(4, ENCODING_RLE);
            h.end();
            h.end();
            w.write_all(&h.buf).map_err(e)?;
            w.write_all(&page).map_err(e)?;
            pos += (h.buf.len() + page.len()) as u64;
            start = end;
            if start >= rows {
                break;
            }
        }
        chunks.push(ChunkMeta {
            offset,
            size: pos - offset,
        });
    }

    let mut m = Compact::new();
    m.i32(1, 1); // version
    m.list_header(2, CT_STRUCT, t.num_columns() + 1);
    m.begin(None);
    m.string(4, "schema");
    m.i32(5, t.num_columns() as i32);
    m.end();
    for c in t.columns() {
        m.begin(None);
        m.i32(1, physical(&c.data));
        m.i32(3, REPETITION_OPTIONAL);
        m.string(4, &c.name);
        match c.data {
            ColumnData::U64(_) => {
                m.i32(6, CONVERTED_UINT_64);
                m.begin(Some(10)); // LogicalType union
                m.begin(Some(10)); // INTEGER: IntType
                m.byte(1, 64);
                m.bool(2, false);
                m.end();
                m.end();
            }
            ColumnData::Str(_) => {
                m.i32(6, CONVERTED_UTF8);
                m.begin(Some(10));
                m.begin(Some(1)); // STRING: StringType {}
                m.end();
                m.end();
            }
            _ => {}
        }
        m.end();
    }
    m.i64(3, rows as i64);
    m.list_header(4, CT_STRUCT, 1);
    m.begin(None); // RowGroup
    m.list_header(1, CT_STRUCT, chunks.len());
    for (c, ch) in t.columns().iter().zip(&chunks) {
        m.begin(None); // ColumnChunk
        m.i64(2, ch.offset as i64);
        m.begin(Some(3)); // ColumnMetaData
        m.i32(1, physical(&c.data));
        m.list_header(2, CT_I32, 2);
        m.zigzag(ENCODING_PLAIN as i64);
        m.zigzag(ENCODING_RLE as i64);
        m.list_header(3, CT_BINARY, 1);
        m.binary_raw(c.name.as_bytes());
        m.i32(4, CODEC_UNCOMPRESSED);
        m.i64(5, rows as i64);
        m.i64(6, ch.size as i64);
        m.i64(7, ch.size as i64);
        m.i64(9, ch.offset as i64);
        m.end();
        m.end();
    }
    m.i64(2, chunks.iter().map(|c| c.size as i64).sum());
    m.i64(3, rows as i64);
    m.end();
    m.string(6, concat!("mptlab version ", env!("CARGO_PKG_VERSION")));
    m.end();
    w.write_all(&m.buf).map_err(e)?;
    w.write_all(&(m.buf.len() as u32).to_le_bytes())
        .map_err(e)?;
    w.write_all(MAGIC).map_err(e)?;
    w.flush().map_err(e)?;
    Ok(())
}
