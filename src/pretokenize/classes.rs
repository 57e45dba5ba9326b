//! The character classes the fixed patterns test, as one byte of flags per code point.
//!
//! The tables are built from `regex-syntax`, the crate that gives fancy-regex its Unicode
//! classes, by parsing the very class expressions the patterns use. So the fast splitters and
//! the regex agree on every code point, whatever Unicode version that crate carries (16.0 at
//! the time of writing, while Rust's `char` methods may already follow a later one). CLIP's
//! splitter has tables of its own, from the Python `regex` module's classes that CLIP's
//! pattern is written out with (`clip_classes.rs`).

use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};

/// `\s`: Unicode White_Space.
pub const WS: u8 = 1;
/// `\p{L}`: general category L (Lu, Ll, Lt, Lm, Lo).
pub const LETTER: u8 = 2;
/// `\p{N}`: general category N (Nd, Nl, No).
pub const NUMBER: u8 = 4;
/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, the capitals of a word.
pub const UPPER: u8 = 8;
/// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, the rest of a word.
pub const LOWER: u8 = 16;
/// `\r` or `\n`.
pub const NEWLINE: u8 = 32;
/// In CLIP's tables: U+0345, which CLIP's pattern leaves out of every branch.
pub const CLIP_DROPPED: u8 = 64;

/// The class expressions as the patterns write them, with the flag each one sets.
const SOURCES: [(&str, u8); 6] = [
    (r"\s", WS),
    (r"\p{L}", LETTER),
    (r"\p{N}", NUMBER),
    (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPER),
    (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWER),
    (r"[\r\n]", NEWLINE),
];

/// Code points per block of the two-level table. With 256, the 4,352 block slots cost
/// 8.5 KiB and identical blocks (unassigned planes, CJK, Hangul) are stored once.
const BLOCK_BITS: u32 = 8;
const BLOCK: usize = 1 << BLOCK_BITS;
const CODE_POINTS: usize = 0x11_0000;

pub struct Classes {
    /// ASCII is looked up here directly, without decoding or the second level.
    pub ascii: [u8; 128],
    /// The Basic Multilingual Plane flat: one load instead of two dependent ones for
    /// Cyrillic, Greek, CJK, Hangul... (64 KiB; why: docs/performance.md#pre-tokenization).
    /// Above it, text is rare enough for the two-level table.
    bmp: Box<[u8; 0x1_0000]>,
    /// For each block of `BLOCK` code points, the index of its flags in `blocks`.
    index: Vec<u16>,
    blocks: Vec<u8>,
}

impl Classes {
    /// The flags of the code point `cp` (any `u32`; out of range is no class).
    #[inline(always)]
    pub fn of(&self, cp: u32) -> u8 {
        if cp < 0x1_0000 {
            return self.bmp[cp as u16 as usize];
        }
        let block = match self.index.get((cp >> BLOCK_BITS) as usize) {
            Some(&b) => b as usize,
            None => return 0,
        };
        self.blocks
            .get(block * BLOCK + (cp as usize & (BLOCK - 1)))
            .copied()
            .unwrap_or(0)
    }

    /// The flags and UTF-8 length of the character starting at byte `i` of `b`, or `None` at
    /// the end. `b` comes from a `&str` and `i` is on a character boundary, so the sequence
    /// is well formed; missing bytes would read as zero rather than panic.
    #[inline(always)]
    pub fn at(&self, b: &[u8], i: usize) -> Option<(u8, usize)> {
        let &b0 = b.get(i)?;
        if b0 < 0x80 {
            return Some((self.ascii[b0 as usize], 1));
        }
        let (cp, len) = decode(b, i, b0);
        Some((self.of(cp), len))
    }
}

/// Decodes the multi-byte UTF-8 sequence that starts with `b0` at `b[i]`.
#[inline(always)]
fn decode(b: &[u8], i: usize, b0: u8) -> (u32, usize) {
    let cont = |k: usize| (b.get(i + k).copied().unwrap_or(0x80) & 0x3f) as u32;
    if b0 < 0xe0 {
        (((b0 & 0x1f) as u32) << 6 | cont(1), 2)
    } else if b0 < 0xf0 {
        (((b0 & 0x0f) as u32) << 12 | cont(1) << 6 | cont(2), 3)
    } else {
        (
            ((b0 & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3),
            4,
        )
    }
}

/// The tables, built once (0.3 ms) when the first fast pre-tokenizer is made, and shared by
/// all threads.
pub fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(|| {
        build(SOURCES.iter().flat_map(|&(class, flag)| {
            ranges(class)
                .into_iter()
                .map(move |(start, end)| (start as u32, end as u32, flag))
        }))
    })
}

/// CLIP's tables: `\s`, `\p{L}` and `\p{N}` as the Python `regex` module has them, and
/// U+0345 (see `CLIP_DROPPED`).
pub fn clip_classes() -> &'static Classes {
    use super::clip_classes::{LETTER as L, NUMBER as N, SPACE as S};
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let pairs = |table: &'static [u32], flag: u8| {
            table
                .chunks_exact(2)
                .map(move |pair| (pair[0], pair[1], flag))
        };
        build(
            pairs(S, WS)
                .chain(pairs(L, LETTER))
                .chain(pairs(N, NUMBER))
                .chain([(0x345, 0x345, CLIP_DROPPED)]),
        )
    })
}

/// The code point ranges of one class expression, as regex-syntax reads it.
pub fn ranges(class: &str) -> Vec<(char, char)> {
    // The expressions are fixed and valid; an empty list would only make the fast path
    // disagree with the regex, which the differential tests catch.
    let Ok(hir) = regex_syntax::Parser::new().parse(class) else {
        return Vec::new();
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges().iter().map(|r| (r.start(), r.end())).collect()
        }
        _ => Vec::new(),
    }
}

/// The tables from inclusive code point ranges, each with the flag it sets.
fn build(ranges: impl Iterator<Item = (u32, u32, u8)>) -> Classes {
    let mut flat = vec![0u8; CODE_POINTS];
    for (start, end, flag) in ranges {
        let end = (end as usize).min(CODE_POINTS - 1);
        for slot in flat.get_mut(start as usize..=end).unwrap_or_default() {
            *slot |= flag;
        }
    }
    let mut ascii = [0u8; 128];
    ascii.copy_from_slice(&flat[..128]);
    let mut bmp = Box::new([0u8; 0x1_0000]);
    bmp.copy_from_slice(&flat[..0x1_0000]);
    let mut index = Vec::with_capacity(CODE_POINTS / BLOCK);
    let mut blocks: Vec<u8> = Vec::new();
    let mut seen: rustc_hash::FxHashMap<&[u8], u16> = Default::default();
    for block in flat.chunks(BLOCK) {
        let next = (blocks.len() / BLOCK) as u16;
        let id = *seen.entry(block).or_insert_with(|| {
            blocks.extend_from_slice(block);
            next
        });
        index.push(id);
    }
    Classes {
        ascii,
        bmp,
        index,
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_general_categories() {
        let c = classes();
        let of = |ch: char| c.of(ch as u32);
        assert_eq!(of(' '), WS);
        assert_eq!(of('\n'), WS | NEWLINE);
        assert_eq!(of('\u{a0}'), WS);
        assert_eq!(of('\u{2028}'), WS);
        assert_eq!(of('\u{1f}'), 0, "U+001F is Python whitespace but not \\s");
        assert_eq!(of('a'), LETTER | LOWER);
        assert_eq!(of('A'), LETTER | UPPER);
        assert_eq!(of('\u{1c5}'), LETTER | UPPER, "Dž is Lt");
        assert_eq!(of('\u{2b0}'), LETTER | UPPER | LOWER, "ʰ is Lm");
        assert_eq!(of('한'), LETTER | UPPER | LOWER, "Hangul is Lo");
        assert_eq!(of('\u{301}'), UPPER | LOWER, "a combining mark is M, not L");
        assert_eq!(of('7'), NUMBER);
        assert_eq!(of('½'), NUMBER);
        assert_eq!(of('Ⅻ'), NUMBER, "Nl");
        assert_eq!(of('\u{10400}'), LETTER | UPPER, "astral Lu");
        assert_eq!(of('!'), 0);
        assert_eq!(of('😀'), 0);
        assert_eq!(c.of(0x11_0000), 0);
        assert_eq!(c.of(u32::MAX), 0);
    }

    #[test]
    fn ascii_table_and_decoding_agree_with_the_blocks() {
        let c = classes();
        for cp in 0..128u32 {
            assert_eq!(c.ascii[cp as usize], c.of(cp));
        }
        // The flat BMP table and the two-level one hold the same flags.
        for cp in 0..0x1_0000u32 {
            let block = c.index[(cp >> BLOCK_BITS) as usize] as usize;
            assert_eq!(
                c.blocks[block * BLOCK + (cp as usize & (BLOCK - 1))],
                c.of(cp)
            );
        }
        for ch in ['a', 'é', '€', '한', '𐐀', '\u{10ffff}'] {
            let mut buf = [0u8; 4];
            let s = ch.encode_utf8(&mut buf);
            assert_eq!(c.at(s.as_bytes(), 0), Some((c.of(ch as u32), s.len())));
        }
        assert_eq!(c.at(b"", 0), None);
        // A truncated sequence (not possible from a &str) still answers, without panicking.
        assert!(c.at(&[0xe2], 0).is_some());
    }

    #[test]
    fn table_is_compact() {
        let c = classes();
        assert_eq!(c.index.len(), CODE_POINTS / BLOCK);
        assert!(
            c.blocks.len() < 200 * BLOCK,
            "{} blocks",
            c.blocks.len() / BLOCK
        );
    }
}
