//! The wire format (version 1, described in the module above): writing a stream, and
//! reading one back with every field checked. A malformed stream is a `Format` error that
//! names the byte offset.

use super::algorithm::PackedBlock;
use super::{check_block_size, LIST_TABLE_MAX, MAGIC, MAX_BLOCK_SIZE, VERSION};
use crate::error::{Error, Location, Result};

pub(super) fn write_stream(original: &[u8], block_size: usize, blocks: &[PackedBlock]) -> Vec<u8> {
    let packed_len: usize = blocks
        .iter()
        .map(|b| b.data.len() + 3 * b.table.len() + 4)
        .sum();
    let mut out = Vec::with_capacity(packed_len + 32);
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    write_varint(&mut out, block_size as u64);
    write_varint(&mut out, original.len() as u64);
    out.extend_from_slice(&crc32(original).to_le_bytes());
    for block in blocks {
        write_table(&mut out, &block.table);
        write_varint(&mut out, block.data.len() as u64);
        out.extend_from_slice(&block.data);
    }
    out
}

pub(super) fn write_table(out: &mut Vec<u8>, table: &[(u8, (u8, u8))]) {
    // At most 255 entries: one per byte value unused in a non-empty block.
    out.push(table.len() as u8);
    if table.len() <= LIST_TABLE_MAX {
        for &(symbol, (left, right)) in table {
            out.extend_from_slice(&[symbol, left, right]);
        }
        return;
    }
    let mut pairs: [Option<(u8, u8)>; 256] = [None; 256];
    let mut bitmap = [0u8; 32];
    for &(symbol, pair) in table {
        pairs[usize::from(symbol)] = Some(pair);
        bitmap[usize::from(symbol / 8)] |= 1 << (symbol % 8);
    }
    out.extend_from_slice(&bitmap);
    for (left, right) in pairs.iter().flatten() {
        out.extend_from_slice(&[*left, *right]);
    }
}

pub(super) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// An error about the compressed stream at `offset`.
pub(super) fn corrupt(offset: usize, what: impl std::fmt::Display) -> Error {
    Error::format(
        format!("compressed data, byte {offset}: {what}"),
        Location {
            offset: Some(offset as u64),
            ..Location::default()
        },
    )
}

/// Reads the stream front to back; every read names its offset when the data ends.
pub(super) struct Reader<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let left = self.data.len() - self.pos;
        if n > left {
            return Err(corrupt(
                self.pos,
                format!("truncated: {what} needs {n} bytes, {left} remain"),
            ));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    pub(super) fn byte(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub(super) fn varint(&mut self, what: &str) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte(what)?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(corrupt(start, format!("{what} does not fit in 64 bits")));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt(start, format!("{what} is longer than 10 bytes")))
    }
}

/// Restores the original data from the output of [`compress`], checking it on the way.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>> {
    let mut reader = Reader { data, pos: 0 };
    let magic = reader
        .take(MAGIC.len(), "the magic \"SWPC\"")
        .map_err(|_| {
            corrupt(
                0,
                "not subword compressed data (too short for the magic \"SWPC\")",
            )
        })?;
    if magic != MAGIC {
        return Err(corrupt(
            0,
            format!(
                "not subword compressed data (bad magic {}, expected \"SWPC\")",
                show_bytes(magic)
            ),
        ));
    }
    let version_at = reader.pos;
    let version = reader.byte("the format version")?;
    if version != VERSION {
        return Err(corrupt(
            version_at,
            format!("unsupported format version {version} (this build reads version {VERSION})"),
        ));
    }
    let block_size_at = reader.pos;
    let block_size = reader.varint("the block size")?;
    let block_size = usize::try_from(block_size)
        .ok()
        .filter(|&b| check_block_size(b).is_ok())
        .ok_or_else(|| {
            corrupt(
                block_size_at,
                format!("block size {block_size} is out of range (1 ..= {MAX_BLOCK_SIZE})"),
            )
        })?;
    let length_at = reader.pos;
    let length = reader.varint("the original length")?;
    let length = usize::try_from(length)
        .map_err(|_| corrupt(length_at, format!("original length {length} is too large")))?;
    let checksum_at = reader.pos;
    let checksum = reader.take(4, "the checksum")?;
    let checksum = u32::from_le_bytes([checksum[0], checksum[1], checksum[2], checksum[3]]);

    let blocks = length.div_ceil(block_size);
    // Grows with what is actually restored, never with a length the data merely claims.
    let mut out = Vec::with_capacity(length.min(data.len().saturating_mul(4)));
    for index in 0..blocks {
        let expected = block_size.min(length - index * block_size);
        read_block(&mut reader, index, blocks, expected, &mut out)?;
    }
    if reader.pos < data.len() {
        return Err(corrupt(
            reader.pos,
            format!(
                "{} unexpected bytes after the last block",
                data.len() - reader.pos
            ),
        ));
    }
    let actual = crc32(&out);
    if actual != checksum {
        return Err(corrupt(
            checksum_at,
            format!("checksum mismatch: stored {checksum:#010x}, the restored data gives {actual:#010x}"),
        ));
    }
    Ok(out)
}

/// The table of one block, read and checked: which bytes are symbols and their pairs.
pub(super) struct Table {
    pub(super) pairs: [Option<(u8, u8)>; 256],
}

pub(super) fn read_block(
    reader: &mut Reader<'_>,
    index: usize,
    blocks: usize,
    expected: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let name = format!("block {index} (of {blocks})");
    let table_at = reader.pos;
    let table = read_table(reader, &name)?;
    let lengths = expansion_lengths(&table, &name, table_at)?;

    let packed_len_at = reader.pos;
    let packed_len = reader.varint(&format!("the data length of {name}"))?;
    let packed_len = usize::try_from(packed_len).map_err(|_| {
        corrupt(
            packed_len_at,
            format!("data length {packed_len} of {name} is too large"),
        )
    })?;
    let data_at = reader.pos;
    let packed = reader.take(packed_len, &format!("the data of {name}"))?;

    let restored = packed
        .iter()
        .fold(0u64, |sum, &b| sum.saturating_add(lengths[usize::from(b)]));
    if restored != expected as u64 {
        let restored = if restored > 1 << 63 {
            "more than 2^63".to_string()
        } else {
            restored.to_string()
        };
        return Err(corrupt(
            data_at,
            format!("{name} expands to {restored} bytes, expected {expected}"),
        ));
    }
    expand(&table, packed, out);
    Ok(())
}

pub(super) fn read_table(reader: &mut Reader<'_>, name: &str) -> Result<Table> {
    let count = usize::from(reader.byte(&format!("the table size of {name}"))?);
    let mut table = Table { pairs: [None; 256] };
    if count <= LIST_TABLE_MAX {
        for entry in 0..count {
            let at = reader.pos;
            let bytes = reader.take(3, &format!("table entry {entry} of {name}"))?;
            let (symbol, pair) = (bytes[0], (bytes[1], bytes[2]));
            let slot = &mut table.pairs[usize::from(symbol)];
            if slot.is_some() {
                return Err(corrupt(
                    at,
                    format!("{name} defines symbol {symbol:#04x} twice"),
                ));
            }
            *slot = Some(pair);
        }
        return Ok(table);
    }
    let bitmap_at = reader.pos;
    let bitmap = reader.take(32, &format!("the symbol bitmap of {name}"))?;
    let marked: usize = bitmap.iter().map(|b| b.count_ones() as usize).sum();
    if marked != count {
        return Err(corrupt(
            bitmap_at,
            format!(
                "the symbol bitmap of {name} marks {marked} symbols, its table size says {count}"
            ),
        ));
    }
    let pairs = reader.take(2 * count, &format!("the table of {name}"))?;
    let symbols = (0..=255u8).filter(|&s| bitmap[usize::from(s / 8)] & (1 << (s % 8)) != 0);
    for (symbol, pair) in symbols.zip(pairs.chunks_exact(2)) {
        table.pairs[usize::from(symbol)] = Some((pair[0], pair[1]));
    }
    Ok(table)
}

/// The expanded length of every byte value (1 for plain bytes), saturating at `u64::MAX`.
/// Fails on an entry that reaches itself, naming the loop.
pub(super) fn expansion_lengths(table: &Table, name: &str, table_at: usize) -> Result<[u64; 256]> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }

    /// Depth-first; the recursion is at most 256 deep, one level per symbol on the path.
    pub(super) fn visit(
        symbol: u8,
        table: &Table,
        state: &mut [State; 256],
        lengths: &mut [u64; 256],
        path: &mut Vec<u8>,
    ) -> std::result::Result<u64, Vec<u8>> {
        let Some((left, right)) = table.pairs[usize::from(symbol)] else {
            return Ok(1);
        };
        match state[usize::from(symbol)] {
            State::Done => return Ok(lengths[usize::from(symbol)]),
            State::OnPath => {
                let start = path.iter().position(|&s| s == symbol).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(symbol);
                return Err(cycle);
            }
            State::New => {}
        }
        state[usize::from(symbol)] = State::OnPath;
        path.push(symbol);
        let length = visit(left, table, state, lengths, path)?
            .saturating_add(visit(right, table, state, lengths, path)?);
        path.pop();
        state[usize::from(symbol)] = State::Done;
        lengths[usize::from(symbol)] = length;
        Ok(length)
    }

    let mut state = [State::New; 256];
    let mut lengths = [1u64; 256];
    let mut path = Vec::with_capacity(256);
    for symbol in 0..=255u8 {
        if let Err(cycle) = visit(symbol, table, &mut state, &mut lengths, &mut path) {
            let first = cycle[0];
            let (left, right) = table.pairs[usize::from(first)].unwrap_or((first, first));
            let chain: Vec<String> = cycle.iter().map(|s| format!("{s:#04x}")).collect();
            return Err(corrupt(
                table_at,
                format!(
                    "the table of {name} has entry {first:#04x} = ({left:#04x}, {right:#04x}) \
                     referring to itself in a loop: {}",
                    chain.join(" -> ")
                ),
            ));
        }
    }
    Ok(lengths)
}

/// Appends the expansion of `packed`. The table has been checked: no loops, and the total
/// length is known, so this ends and writes exactly that many bytes.
pub(super) fn expand(table: &Table, packed: &[u8], out: &mut Vec<u8>) {
    let mut stack: Vec<u8> = Vec::with_capacity(256);
    for &byte in packed {
        stack.push(byte);
        while let Some(top) = stack.pop() {
            match table.pairs[usize::from(top)] {
                Some((left, right)) => {
                    stack.push(right);
                    stack.push(left);
                }
                None => out.push(top),
            }
        }
    }
}

pub(super) fn show_bytes(bytes: &[u8]) -> String {
    let mut shown = String::from("\"");
    for &b in bytes {
        if b.is_ascii_graphic() || b == b' ' {
            shown.push(char::from(b));
        } else {
            shown.push_str(&format!("\\x{b:02x}"));
        }
    }
    shown.push('"');
    shown
}

/// The table of CRC-32 (reflected polynomial 0xEDB88320), built at compile time.
pub(super) const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC-32 as zlib, gzip and PNG compute it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}
