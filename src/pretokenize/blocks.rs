//! cl100k's, Llama 3's (which differ only at the end of the text) and o200k's pieces 64
//! bytes at a time on ASCII, Cyrillic, accented Latin, Korean and Chinese text. The bytes
//! are sorted into classes by SIMD compares (SSE2, or AVX-512BW where the CPU has it; NEON
//! on AArch64), one bit per byte, and where pieces start is worked out from those bits for
//! the whole block at once: a piece then costs a bit scan instead of class lookups and a
//! branch per alternative of the pattern (docs/performance.md#pre-tokenization).
//!
//! A block is read from `at`, a piece start, as if the text began there: the patterns have
//! no look-behind, so the pieces from a piece start on do not depend on what came before.
//! The byte after the block is looked at too (whether a run goes on past it). A block ends
//! early at a character it does not cover: any non-ASCII one but those that `known_bytes`
//! names (two-byte Latin and Cyrillic letters, Hangul syllables, CJK ideographs and kana,
//! which are letters whatever surrounds them; general, CJK and full-width punctuation, which
//! is `others`). What the bits cannot settle cheaply is left to the byte-at-a-time splitter:
//! text that starts with other characters, whitespace right before a line break
//! (`\s*[\r\n]` then reaches back over it) and, for o200k, a `/` right after a line break
//! (`[\r\n/]*` after punctuation) and a capital right after a Hangul syllable, an
//! ideograph or kana. In debug builds the caller checks every piece of a block against that
//! splitter.

use super::contraction;
use known::known_bytes;

#[path = "blocks_known.rs"]
mod known;

/// Bit `i` set for byte `at + i` in the class.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct ClassBits {
    /// ASCII letters, `\p{L}`.
    pub letters: u64,
    /// ASCII digits, `\p{N}`.
    pub digits: u64,
    /// `\r` and `\n`.
    pub newlines: u64,
    /// Whitespace other than `\r` and `\n`: space, tab, `\x0B`, `\x0C`.
    pub spaces: u64,
    /// The space character alone.
    pub space: u64,
    /// Everything else: `[^\s\p{L}\p{N}]` among ASCII bytes.
    pub others: u64,
    /// `'`, which may start a contraction.
    pub apostrophes: u64,
    /// o200k only (`CASED`): lower-case letters, and `/`.
    pub lower: u64,
    pub slash: u64,
    /// o200k only: letters in both of its sets of word letters (Hangul syllables, CJK
    /// ideographs and kana, `Lo` and `Lm`), which are in `lower` too: read as small letters,
    /// exact unless a capital follows one (`block_starts`).
    pub caseless: u64,
    /// The first bytes of three-byte `others` characters (general, CJK and full-width
    /// punctuation): one of them alone may lead a word, as one ASCII punctuation character
    /// may.
    pub long_others: u64,
    /// How many bytes from the first the block covers (64: all): ASCII, and the whole
    /// letters (in `letters`) and punctuation (in `others`) that `known_bytes` names. The
    /// bits from there on are not used.
    pub known: u32,
}

/// `class_bits` with AVX-512BW: one 64-byte load, each class one or two compares into a
/// mask register.
///
/// # Safety
/// Only on a CPU with AVX-512F and AVX-512BW (`fast::wide_blocks`): the splitting loop
/// compiled with them (`fast::split_wide`), and a test that checks first.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn class_bits_wide<const CASED: bool>(b: &[u8], at: usize) -> Option<ClassBits> {
    use std::arch::x86_64::*;
    let block = b.get(at..at + 64)?;
    // SAFETY: `block` is 64 bytes, read unaligned; the CPU has the instructions (above).
    unsafe { classes_wide::<CASED>(_mm512_loadu_si512(block.as_ptr() as *const _)) }
}

/// `class_bits_wide` of a text's last `rest.len()` bytes (at most 64) followed by spaces,
/// read with one masked load: no copy into a block, whose 64-byte read after the copy's
/// narrower writes would wait for them.
///
/// # Safety
/// As `class_bits_wide`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn tail_bits_wide<const CASED: bool>(rest: &[u8]) -> Option<ClassBits> {
    use std::arch::x86_64::*;
    if rest.len() > 64 {
        return None;
    }
    // SAFETY: the mask covers `rest`'s bytes only; a masked load does not touch the memory
    // of the bytes it leaves out (they take the spaces). The CPU has the instructions.
    unsafe {
        let x = _mm512_mask_loadu_epi8(
            _mm512_set1_epi8(b' ' as i8),
            below(rest.len() as u32),
            rest.as_ptr() as *const i8,
        );
        classes_wide::<CASED>(x)
    }
}

/// The classes of the 64 bytes in `x` (`class_bits_wide`).
///
/// # Safety
/// As `class_bits_wide`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn classes_wide<const CASED: bool>(x: std::arch::x86_64::__m512i) -> Option<ClassBits> {
    use std::arch::x86_64::*;
    // SAFETY: register operations only; the CPU has the instructions (above).
    let mut bits = unsafe {
        let high = _mm512_movepi8_mask(x);
        let set = |c: u8| _mm512_set1_epi8(c as i8);
        let in_range = |x: __m512i, lo: u8, hi: u8| {
            _mm512_cmple_epu8_mask(_mm512_sub_epi8(x, set(lo)), set(hi - lo))
        };
        let known = known_bytes::<CASED>(high, |lo, hi| in_range(x, lo, hi))?;
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, set(c));
        let newlines = eq(b'\n') | eq(b'\r');
        let space = eq(b' ');
        let controls = in_range(x, b'\t', b'\r') & !newlines;
        ClassBits {
            letters: in_range(_mm512_or_si512(x, set(0x20)), b'a', b'z') | known.letters,
            digits: in_range(x, b'0', b'9'),
            newlines,
            spaces: controls | space,
            space,
            others: 0,
            apostrophes: eq(b'\''),
            lower: if CASED {
                in_range(x, b'a', b'z') | known.lower
            } else {
                0
            },
            slash: if CASED { eq(b'/') } else { 0 },
            caseless: known.caseless,
            long_others: known.long_others,
            known: known.len,
        }
    };
    bits.others = !(bits.letters | bits.digits | bits.newlines | bits.spaces);
    Some(bits)
}

/// The classes of `b[at..at + 64]`, or `None` if one of its first 32 bytes is not ASCII
/// (text that dense in other characters is left to the byte splitter whole). `WIDE`: with
/// AVX-512BW (`class_bits_wide`), else SSE2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn class_bits<const CASED: bool, const WIDE: bool>(
    b: &[u8],
    at: usize,
) -> Option<ClassBits> {
    use std::arch::x86_64::*;
    if WIDE {
        // SAFETY: `WIDE` is true only in `fast::split_wide`, which runs on CPUs with
        // AVX-512F and AVX-512BW, and in a test that checks for them.
        return unsafe { class_bits_wide::<CASED>(b, at) };
    }
    let block = b.get(at..at + 64)?;
    // SAFETY: `block` is 64 bytes, read as four unaligned 16-byte loads; SSE2, the only
    // instruction set used, is part of every x86_64 target.
    let mut bits = unsafe {
        let ptr = block.as_ptr() as *const __m128i;
        let v = [
            _mm_loadu_si128(ptr),
            _mm_loadu_si128(ptr.add(1)),
            _mm_loadu_si128(ptr.add(2)),
            _mm_loadu_si128(ptr.add(3)),
        ];
        let high = |k: usize| (_mm_movemask_epi8(v[k]) as u16 as u64) << (16 * k);
        // A byte is in `lo..=hi` when adding `0x80 - lo` puts it below `0x81 + (hi - lo)`
        // as a signed byte: one add and one signed compare.
        let in_range = |x: __m128i, lo: u8, hi: u8| {
            let shifted = _mm_add_epi8(x, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
            _mm_cmplt_epi8(shifted, _mm_set1_epi8(0x81u8.wrapping_add(hi - lo) as i8))
        };
        let all_high = high(0) | high(1) | high(2) | high(3);
        let known = known_bytes::<CASED>(all_high, |lo, hi| {
            (0..4).fold(0, |m, k| {
                m | (_mm_movemask_epi8(in_range(v[k], lo, hi)) as u16 as u64) << (16 * k)
            })
        })?;
        let eq = |x: __m128i, c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
        let mut bits = ClassBits {
            letters: known.letters,
            known: known.len,
            ..ClassBits::default()
        };
        for (k, &x) in v.iter().enumerate() {
            let put = |m: __m128i| (_mm_movemask_epi8(m) as u16 as u64) << (16 * k);
            // `| 0x20` lower-cases letters and sends no other ASCII byte into a..z.
            bits.letters |= put(in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), b'a', b'z'));
            bits.digits |= put(in_range(x, b'0', b'9'));
            let newline = _mm_or_si128(eq(x, b'\n'), eq(x, b'\r'));
            bits.newlines |= put(newline);
            let space = eq(x, b' ');
            bits.space |= put(space);
            // \t \n \x0B \x0C \r, less the line breaks, plus the space.
            let controls = _mm_andnot_si128(newline, in_range(x, b'\t', b'\r'));
            bits.spaces |= put(_mm_or_si128(controls, space));
            bits.apostrophes |= put(eq(x, b'\''));
            if CASED {
                bits.lower |= put(in_range(x, b'a', b'z'));
                bits.slash |= put(eq(x, b'/'));
            }
        }
        bits.lower |= known.lower;
        bits.caseless = known.caseless;
        bits.long_others = known.long_others;
        bits
    };
    bits.others = !(bits.letters | bits.digits | bits.newlines | bits.spaces);
    Some(bits)
}

/// The classes of `b[at..at + 64]` with NEON (part of every AArch64 target), as `class_bits`
/// gives them on x86_64. NEON has no movemask: each class's four compare vectors are
/// reduced to 64 bits by keeping one weight bit per byte (1, 2, 4, ... 128 in each group of
/// eight) and adding neighbouring bytes pairwise three times. `WIDE` is not used.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(super) fn class_bits<const CASED: bool, const WIDE: bool>(
    b: &[u8],
    at: usize,
) -> Option<ClassBits> {
    use std::arch::aarch64::*;
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    /// Bit `i` set where byte `i`'s lane of `f` (all ones or zero) is set.
    #[inline(always)]
    fn mask(v: &[uint8x16_t; 4], f: impl Fn(uint8x16_t) -> uint8x16_t) -> u64 {
        // SAFETY: `WEIGHTS` is 16 bytes; NEON is a baseline feature of the AArch64 targets.
        unsafe {
            let weights = vld1q_u8(WEIGHTS.as_ptr());
            let w = |k: usize| vandq_u8(f(v[k]), weights);
            let sums = vpaddq_u8(vpaddq_u8(w(0), w(1)), vpaddq_u8(w(2), w(3)));
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(sums, sums)))
        }
    }
    let block = b.get(at..at + 64)?;
    // SAFETY: `block` is 64 bytes, read as four unaligned 16-byte loads.
    let v = unsafe {
        let ptr = block.as_ptr();
        [
            vld1q_u8(ptr),
            vld1q_u8(ptr.add(16)),
            vld1q_u8(ptr.add(32)),
            vld1q_u8(ptr.add(48)),
        ]
    };
    // SAFETY (the compares below): NEON is a baseline feature of the AArch64 targets.
    let high = mask(&v, |x| unsafe { vcgeq_u8(x, vdupq_n_u8(0x80)) });
    let in_range = |x: uint8x16_t, lo: u8, hi: u8| unsafe {
        vcleq_u8(vsubq_u8(x, vdupq_n_u8(lo)), vdupq_n_u8(hi - lo))
    };
    let known = known_bytes::<CASED>(high, |lo, hi| mask(&v, |x| in_range(x, lo, hi)))?;
    let eq = |x: uint8x16_t, c: u8| unsafe { vceqq_u8(x, vdupq_n_u8(c)) };
    let newline = |x| unsafe { vorrq_u8(eq(x, b'\n'), eq(x, b'\r')) };
    let mut bits = ClassBits {
        // `| 0x20` lower-cases letters and sends no other ASCII byte into a..z.
        letters: mask(&v, |x| {
            in_range(unsafe { vorrq_u8(x, vdupq_n_u8(0x20)) }, b'a', b'z')
        }) | known.letters,
        digits: mask(&v, |x| in_range(x, b'0', b'9')),
        newlines: mask(&v, newline),
        // \t \n \x0B \x0C \r, less the line breaks, plus the space.
        spaces: mask(&v, |x| unsafe {
            vorrq_u8(vbicq_u8(in_range(x, b'\t', b'\r'), newline(x)), eq(x, b' '))
        }),
        space: mask(&v, |x| eq(x, b' ')),
        others: 0,
        apostrophes: mask(&v, |x| eq(x, b'\'')),
        lower: if CASED {
            mask(&v, |x| in_range(x, b'a', b'z')) | known.lower
        } else {
            0
        },
        slash: if CASED { mask(&v, |x| eq(x, b'/')) } else { 0 },
        caseless: known.caseless,
        long_others: known.long_others,
        known: known.len,
    };
    bits.others = !(bits.letters | bits.digits | bits.newlines | bits.spaces);
    Some(bits)
}

/// No SIMD path on other targets: the byte-at-a-time splitter takes every piece.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
pub(super) fn class_bits<const CASED: bool, const WIDE: bool>(
    _: &[u8],
    _: usize,
) -> Option<ClassBits> {
    None
}

/// The classes of one ASCII byte, as the bit 0 of each mask (the byte after a block).
fn byte_bits(x: u8) -> ClassBits {
    let bit = |yes: bool| yes as u64;
    let newline = x == b'\n' || x == b'\r';
    let spaces = matches!(x, b' ' | b'\t' | 0x0B | 0x0C);
    let letters = x.is_ascii_alphabetic();
    let digits = x.is_ascii_digit();
    ClassBits {
        letters: bit(letters),
        digits: bit(digits),
        newlines: bit(newline),
        spaces: bit(spaces),
        space: bit(x == b' '),
        others: bit(!(letters || digits || newline || spaces)),
        apostrophes: bit(x == b'\''),
        lower: bit(x.is_ascii_lowercase()),
        slash: bit(x == b'/'),
        caseless: 0,
        long_others: 0,
        known: 1,
    }
}

/// Bits `0..n`.
fn below(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n).unwrap_or(0)
}

/// Where pieces start in `b[at..at + 64]`, `at` being a piece start (bit 0, always set):
/// bit `i` for a piece that starts at `at + i`, for cl100k (and Llama 3), or o200k when
/// `O200K`. The block ends early where its classes stop (`ClassBits::known`). Only starts
/// that the bytes up to the block's end, and the byte there, settle are set, so the piece
/// from the highest bit may go on past the block. `None` when the block starts with text it
/// does not cover, has one of the cases above or no start but its first. Fewer than 65
/// bytes from `at` (the text's last block): see `tail_starts`, whose highest bit may be
/// the text's end.
#[inline(always)]
pub(super) fn piece_starts<const O200K: bool, const WIDE: bool>(
    b: &[u8],
    at: usize,
) -> Option<u64> {
    match b.get(at + 64) {
        Some(&next_byte) => block_starts::<O200K, WIDE>(b, at, 64, next_byte),
        None => tail_starts::<O200K, WIDE>(b, at),
    }
}

/// Tails shorter than this are left to the byte splitter: a few pieces cost less than
/// reading the tail in and the masks (8 measured slower than 16 with a masked load too;
/// docs/performance.md#a-texts-last-block-cl100k-llama-3-o200k-2026-11-29).
const TAIL_MIN: usize = 16;

/// The starts of the text's last `b.len() - at` bytes (1 to 64), read as a block that
/// spaces fill after them (`tail_bits`). Spaces read as the end of the text does for every
/// start before it: no letter, digit or line break follows, and a whitespace run that
/// reaches the end goes on (the rules above then leave it to the byte splitter, as `\s++$`
/// and `\s+(?!\S)` differ there, unless the run is line breaks only); the starts past
/// the end are masked off, and one at the end is set when the starts before it are all
/// settled (`starts_from`).
#[inline(always)]
fn tail_starts<const O200K: bool, const WIDE: bool>(b: &[u8], at: usize) -> Option<u64> {
    let rest = b.get(at..)?;
    if rest.len() < TAIL_MIN {
        return None;
    }
    let c = tail_bits::<O200K, WIDE>(rest)?;
    // Contractions are read from the text itself: none reads past its end, where the
    // spaces stand.
    starts_from::<O200K, true>(c, b, at, rest.len() as u32, b' ')
}

/// The classes of `rest` (at most 64 bytes) followed by spaces up to 64 bytes.
#[inline(always)]
fn tail_bits<const O200K: bool, const WIDE: bool>(rest: &[u8]) -> Option<ClassBits> {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        // SAFETY: `WIDE` is true only in `fast::split_wide`, which runs on CPUs with
        // AVX-512F and AVX-512BW, and in a test that checks for them.
        return unsafe { tail_bits_wide::<O200K>(rest) };
    }
    let mut block = [b' '; 64];
    block.get_mut(..rest.len())?.copy_from_slice(rest);
    class_bits::<O200K, WIDE>(&block, 0)
}

/// `piece_starts` for the block `b[at..at + 64]`, of which the first `text` bytes are the
/// text's, followed by `next_byte`.
#[inline(always)]
fn block_starts<const O200K: bool, const WIDE: bool>(
    b: &[u8],
    at: usize,
    text: u32,
    next_byte: u8,
) -> Option<u64> {
    starts_from::<O200K, false>(class_bits::<O200K, WIDE>(b, at)?, b, at, text, next_byte)
}

/// `block_starts` from the block's classes `c`; `b` and `at` are read for contractions.
#[inline(always)]
fn starts_from<const O200K: bool, const ENDS_TEXT: bool>(
    c: ClassBits,
    b: &[u8],
    at: usize,
    text: u32,
    next_byte: u8,
) -> Option<u64> {
    let end = c.known.min(text);
    let after = if end == 64 && next_byte.is_ascii() {
        byte_bits(next_byte)
    } else {
        // Not ASCII: never a line break, and not a letter as far as the rules below need,
        // but it may be whitespace.
        ClassBits {
            spaces: 1,
            ..ClassBits::default()
        }
    };
    let settled = below(end);
    // Bit i of `before(x)`: byte i - 1 is in x (nothing before bit 0: the text starts
    // there); of `next(x, ..)`: byte i + 1 is.
    let before = |x: u64| x << 1;
    let next = |x: u64, byte_64: u64| (x >> 1) | (byte_64 << 63);
    let (l, d, n, s, p) = (c.letters, c.digits, c.newlines, c.spaces, c.others);
    if (s & next(n, after.newlines) | (if O200K { c.slash & before(n) } else { 0 })) & settled != 0
    {
        return None;
    }
    // `[^\r\n\p{L}\p{N}]?` before a word: it takes the whitespace character before it (the
    // last of its run, which `\s+(?!\S)` leaves), or a lone punctuation character that no
    // space leads (` ?[^\s\p{L}\p{N}]+` would take the two together).
    // A three-byte punctuation character leads a word the same way, read from its first
    // byte (`long_others`). The test skips the term for cl100k's ASCII blocks; o200k takes
    // it always, since its ASCII loop measured 2% slower with the test (code layout:
    // docs/performance.md#chinese-and-punctuation-in-blocks-cl100k-llama-3-o200k-2026-12-06).
    let mut led = before(s) | (before(p) & !(p << 2) & !(c.space << 2));
    if O200K || c.long_others != 0 {
        led |= c.long_others << 3 & !(p << 4) & !(c.space << 4);
    }
    let mut starts = 1
        | (l & !before(l) & !led)
        // A run of punctuation, from the space before it if there is one.
        | (p & !before(p) & !before(c.space))
        | (d & !before(d))
        // Line breaks, unless they end a run of punctuation (`[\r\n]*`).
        | (n & !before(n) & !before(p))
        // A run of whitespace (after its line breaks), and its last character when the
        // run is longer: `\s+(?!\S)` stops one short.
        | (s & !before(s))
        | (s & before(s) & !next(s, after.spaces));
    if d & (d << 1) & (d << 2) & (d << 3) != 0 {
        starts |= digit_groups(d);
    }
    if O200K {
        // A word is its capitals then its lower-case letters: a capital after a lower-case
        // letter starts the next word. A caseless letter (`Lo`) is in both sets: read as a
        // small letter it gives the regex's pieces (a word is then capitals, then small and
        // caseless letters) unless a capital follows it, where whether a word starts
        // depends on the letters after (`한A` then `A`, but `한A한` is one word): such a
        // block is left to the byte splitter.
        let capitals = l & !c.lower;
        if before(c.caseless) & capitals & settled != 0 {
            return None;
        }
        starts |= capitals & before(c.lower);
        // `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` ends the word before it: neither the apostrophe
        // nor the contraction's letters start a piece (a capital after a small letter in
        // it, `wo'rE`, starts no word), and letters after the contraction start one. A
        // letter that ends a contraction ends no word (`Word's's`: `Word's`, `'s`).
        let mut apostrophes = c.apostrophes & before(l);
        let mut contracted_to = 0;
        while apostrophes != 0 {
            let q = apostrophes.trailing_zeros() as usize;
            let k = if q > contracted_to {
                contraction(b, at + q, true)
            } else {
                0
            };
            if k > 0 {
                starts &= !(below(k as u32) << q);
                contracted_to = q + k;
                if q + k < 64 && l >> (q + k) & 1 == 1 {
                    starts |= 1 << (q + k);
                }
            }
            apostrophes &= apostrophes - 1;
        }
    } else {
        // `'(?i:[sdmt]|ll|ve|re)` at an apostrophe that starts a piece before letters: the
        // letters after the contraction start a piece of their own.
        let mut apostrophes =
            c.apostrophes & !before(p) & !before(c.space) & next(l, after.letters);
        while apostrophes != 0 {
            let q = apostrophes.trailing_zeros() as usize;
            let k = contraction(b, at + q, true);
            if k > 0 && q + k < 64 && l >> (q + k) & 1 == 1 {
                starts |= 1 << (q + k);
            }
            apostrophes &= apostrophes - 1;
        }
    }
    starts &= settled;
    // Whether a run of whitespace reaches the block's end, and its length in bytes.
    let w = (s | n) & settled;
    let reaches_end = w >> (end - 1) & 1 == 1;
    let run = || (!(w << (64 - end))).leading_zeros();
    // At the text's end, every byte classed, with no whitespace there but line breaks: the
    // rules' starts hold up to the end (line breaks are one piece there as before a word,
    // or go with the punctuation before them), and the last piece ends at the end, which
    // is marked as a start so that the whole tail is sent, none of it left to the byte
    // splitter (docs/performance.md#a-texts-end-in-its-last-block-2026-12-07).
    if ENDS_TEXT
        && end == text
        && end < 64
        && (!reaches_end || s & settled & !below(end - run()) == 0)
    {
        return Some(starts | 1 << end);
    }
    // A run of whitespace that goes on past the block may still meet a line break: no start
    // from its first byte on is settled.
    if reaches_end && (after.spaces | after.newlines) == 1 {
        starts &= below(end - run()) | 1;
    }
    // A block with one piece in it (a long word, or whitespace that may go on) is left to
    // the byte splitter too.
    (starts != 1).then_some(starts)
}

/// `\p{N}{1,3}+`: in each run of digits, a piece starts every three digits.
#[cold]
fn digit_groups(d: u64) -> u64 {
    let mut rest = d;
    let mut starts = 0;
    while rest != 0 {
        let first = rest.trailing_zeros();
        let len = (!(rest >> first)).trailing_zeros();
        let mut k = 3;
        while k < len {
            starts |= 1 << (first + k);
            k += 3;
        }
        // Adding the run's lowest bit carries through the run and clears it.
        rest &= rest.wrapping_add(1 << first);
    }
    starts
}

#[cfg(test)]
#[path = "blocks_tests.rs"]
mod tests;
