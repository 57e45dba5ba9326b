//! cl100k's, Llama 3's and o200k's pieces 64 bytes at a time on ASCII text (cl100k and
//! Llama 3 differ only at the end of the text, which blocks never reach). The bytes are
//! sorted into classes by SIMD compares (SSE2, or AVX-512BW where the CPU has it; NEON on
//! AArch64), one bit per byte, and where pieces start is worked out from those bits for the
//! whole block at once: a piece then costs a bit scan instead of class lookups and a branch
//! per alternative of the pattern (docs/performance.md#pre-tokenization).
//!
//! A block is read from `at`, a piece start, as if the text began there: the patterns have
//! no look-behind, so the pieces from a piece start on do not depend on what came before.
//! The byte after the block is looked at too (whether a run goes on past it). A block ends
//! early at a non-ASCII byte. What the bits cannot settle cheaply is left to the
//! byte-at-a-time splitter: text that starts with non-ASCII, whitespace right before a line
//! break (`\s*[\r\n]` then reaches back over it) and, for o200k, a `/` right after a line
//! break (`[\r\n/]*` after punctuation). In debug builds the caller checks every piece of
//! a block against that splitter.

use super::contraction;

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
    /// How many bytes from the first are ASCII (64: all); the bits from there on are not
    /// used.
    pub ascii: u32,
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
    let mut bits = unsafe {
        let x = _mm512_loadu_si512(block.as_ptr() as *const _);
        let high = _mm512_movepi8_mask(x);
        if high as u32 != 0 {
            return None;
        }
        let ascii = high.trailing_zeros();
        let set = |c: u8| _mm512_set1_epi8(c as i8);
        let in_range = |x: __m512i, lo: u8, hi: u8| {
            _mm512_cmple_epu8_mask(_mm512_sub_epi8(x, set(lo)), set(hi - lo))
        };
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, set(c));
        let newlines = eq(b'\n') | eq(b'\r');
        let space = eq(b' ');
        let controls = in_range(x, b'\t', b'\r') & !newlines;
        ClassBits {
            letters: in_range(_mm512_or_si512(x, set(0x20)), b'a', b'z'),
            digits: in_range(x, b'0', b'9'),
            newlines,
            spaces: controls | space,
            space,
            others: 0,
            apostrophes: eq(b'\''),
            lower: if CASED { in_range(x, b'a', b'z') } else { 0 },
            slash: if CASED { eq(b'/') } else { 0 },
            ascii,
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
        if _mm_movemask_epi8(_mm_or_si128(v[0], v[1])) != 0 {
            return None;
        }
        let ascii = (high(2) | high(3)).trailing_zeros();
        // A byte is in `lo..=hi` when adding `0x80 - lo` puts it below `0x81 + (hi - lo)`
        // as a signed byte: one add and one signed compare.
        let in_range = |x: __m128i, lo: u8, hi: u8| {
            let shifted = _mm_add_epi8(x, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
            _mm_cmplt_epi8(shifted, _mm_set1_epi8(0x81u8.wrapping_add(hi - lo) as i8))
        };
        let eq = |x: __m128i, c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
        let mut bits = ClassBits {
            ascii,
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
    // Text dense in other characters fails here, at the cost of an or and a maximum.
    if unsafe { vmaxvq_u8(vorrq_u8(v[0], v[1])) } >= 0x80 {
        return None;
    }
    let high = mask(&v, |x| unsafe { vcgeq_u8(x, vdupq_n_u8(0x80)) });
    let in_range = |x: uint8x16_t, lo: u8, hi: u8| unsafe {
        vcleq_u8(vsubq_u8(x, vdupq_n_u8(lo)), vdupq_n_u8(hi - lo))
    };
    let eq = |x: uint8x16_t, c: u8| unsafe { vceqq_u8(x, vdupq_n_u8(c)) };
    let newline = |x| unsafe { vorrq_u8(eq(x, b'\n'), eq(x, b'\r')) };
    let mut bits = ClassBits {
        // `| 0x20` lower-cases letters and sends no other ASCII byte into a..z.
        letters: mask(&v, |x| {
            in_range(unsafe { vorrq_u8(x, vdupq_n_u8(0x20)) }, b'a', b'z')
        }),
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
            mask(&v, |x| in_range(x, b'a', b'z'))
        } else {
            0
        },
        slash: if CASED { mask(&v, |x| eq(x, b'/')) } else { 0 },
        ascii: high.trailing_zeros(),
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
        ascii: 1,
    }
}

/// Bits `0..n`.
fn below(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n).unwrap_or(0)
}

/// Where pieces start in `b[at..at + 64]`, `at` being a piece start (bit 0, always set):
/// bit `i` for a piece that starts at `at + i`, for cl100k (and Llama 3), or o200k when
/// `O200K`. The block ends early at its first non-ASCII byte. Only starts that the bytes up
/// to the block's end, and the byte there, settle are set, so the piece from the highest bit
/// may go on past the block. `None` when the block starts with non-ASCII text, has one of
/// the cases above or no start but its first; also when byte `at + 64` is missing (the end
/// of the text has rules of its own).
#[inline(always)]
pub(super) fn piece_starts<const O200K: bool, const WIDE: bool>(
    b: &[u8],
    at: usize,
) -> Option<u64> {
    let next_byte = *b.get(at + 64)?;
    let c = class_bits::<O200K, WIDE>(b, at)?;
    let end = c.ascii;
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
    let led = before(s) | (before(p) & !(p << 2) & !(c.space << 2));
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
        // letter starts the next word.
        starts |= l & !c.lower & before(c.lower);
        // `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` ends the word before it: the apostrophe starts
        // no piece, and letters after the contraction start one. A letter that ends a
        // contraction ends no word (`Word's's`: `Word's`, `'s`).
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
                starts &= !(1 << q);
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
    // A run of whitespace that goes on past the block may still meet a line break: no start
    // from its first byte on is settled.
    let w = (s | n) & settled;
    if w >> (end - 1) & 1 == 1 && (after.spaces | after.newlines) == 1 {
        let run = (!(w << (64 - end))).leading_zeros();
        starts &= below(end - run) | 1;
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
mod tests {
    use super::super::super::classes::{classes, LETTER, NEWLINE, NUMBER, WS};
    use super::*;

    /// Whether this target classifies blocks (`class_bits` is not always `None`).
    const CLASSIFIES: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

    /// The classes as AVX-512BW finds them are SSE2's, for every byte below the block's
    /// first non-ASCII one: each ASCII byte at each place, and random blocks with
    /// non-ASCII bytes here and there. Skipped (and said) on a CPU without it.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn wide_class_bits_agree_with_sse2() {
        if !crate::pretokenize::fast::wide_blocks() {
            eprintln!("skipped: this CPU has no AVX-512BW");
            return;
        }
        fn same_for<const CASED: bool>(block: &[u8]) {
            let used = |c: Option<ClassBits>| {
                c.map(|c| {
                    let m = below(c.ascii);
                    [
                        c.letters & m,
                        c.digits & m,
                        c.newlines & m,
                        c.spaces & m,
                        c.space & m,
                        c.others & m,
                        c.apostrophes & m,
                        c.lower & m,
                        c.slash & m,
                        c.ascii as u64,
                    ]
                })
            };
            let wide = class_bits::<CASED, true>(block, 0);
            let narrow = class_bits::<CASED, false>(block, 0);
            assert_eq!(used(wide), used(narrow), "{block:?}");
        }
        fn same(block: &[u8]) {
            same_for::<false>(block);
            same_for::<true>(block);
        }
        for x in 0u8..=255 {
            for i in 0..64 {
                let mut block = [b'a'; 64];
                block[i] = x;
                same(&block);
            }
        }
        let mut rng = crate::rng::SplitMix64::new(7);
        for _ in 0..20_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = (rng.next_u64() & 0x7F) as u8;
            }
            if rng.next_u64().is_multiple_of(2) {
                let at = 32 + (rng.next_u64() % 32) as usize;
                block[at] = 0x80 | (rng.next_u64() & 0x7F) as u8;
            }
            same(&block);
        }
    }

    #[test]
    fn byte_bits_agree_with_the_class_table_on_every_ascii_byte() {
        let table = classes();
        for x in 0u8..128 {
            let f = table.ascii[x as usize];
            let one = byte_bits(x);
            assert_eq!(one.letters == 1, f & LETTER != 0, "{x:#x}");
            assert_eq!(one.digits == 1, f & NUMBER != 0, "{x:#x}");
            assert_eq!(one.newlines == 1, f & NEWLINE != 0, "{x:#x}");
            assert_eq!(one.spaces == 1, f & WS != 0 && f & NEWLINE == 0, "{x:#x}");
            assert_eq!(one.others == 1, f & (WS | LETTER | NUMBER) == 0, "{x:#x}");
        }
    }

    /// A block's classes worked out byte by byte (`byte_bits`), as `class_bits` must give
    /// them: `None` when one of the first 32 bytes is not ASCII; the bits after the first
    /// non-ASCII byte are left out (the block ends there).
    fn class_bits_bytewise<const CASED: bool>(block: &[u8; 64]) -> Option<[u64; 10]> {
        if !block[..32].is_ascii() {
            return None;
        }
        let ascii = block.iter().take_while(|x| x.is_ascii()).count();
        let mut out = [0u64; 10];
        for (i, &x) in block[..ascii].iter().enumerate() {
            let c = byte_bits(x);
            let lower = if CASED { c.lower } else { 0 };
            let slash = if CASED { c.slash } else { 0 };
            let each = [
                c.letters,
                c.digits,
                c.newlines,
                c.spaces,
                c.space,
                c.others,
                c.apostrophes,
                lower,
                slash,
            ];
            for (word, bit) in out.iter_mut().zip(each) {
                *word |= bit << i;
            }
        }
        out[9] = ascii as u64;
        Some(out)
    }

    /// `class_bits` (SSE2 on x86_64, NEON on AArch64) gives each byte's classes at each
    /// place of a block, and stops where `class_bits_bytewise` does: every byte at every
    /// place, and random blocks with non-ASCII bytes here and there.
    #[test]
    fn class_bits_agree_with_the_bytewise_classes() {
        if !CLASSIFIES {
            eprintln!("skipped: no block classification on this target");
            return;
        }
        fn same_for<const CASED: bool>(block: &[u8; 64]) {
            let got = class_bits::<CASED, false>(block, 0).map(|c| {
                let m = below(c.ascii);
                [
                    c.letters & m,
                    c.digits & m,
                    c.newlines & m,
                    c.spaces & m,
                    c.space & m,
                    c.others & m,
                    c.apostrophes & m,
                    c.lower & m,
                    c.slash & m,
                    c.ascii as u64,
                ]
            });
            assert_eq!(got, class_bits_bytewise::<CASED>(block), "{block:?}");
        }
        let same = |block: &[u8; 64]| {
            same_for::<false>(block);
            same_for::<true>(block);
        };
        for x in 0u8..=255 {
            for i in 0..64 {
                let mut block = [b'a'; 64];
                block[i] = x;
                same(&block);
            }
        }
        let mut rng = crate::rng::SplitMix64::new(11);
        for _ in 0..20_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = (rng.next_u64() & 0x7F) as u8;
            }
            if rng.next_u64().is_multiple_of(2) {
                let at = (rng.next_u64() % 64) as usize;
                block[at] = 0x80 | (rng.next_u64() & 0x7F) as u8;
            }
            same(&block);
        }
    }

    #[test]
    fn non_ascii_and_short_blocks_are_left_to_the_byte_splitter() {
        let mut text = vec![b'a'; 65];
        let starts = |t: &[u8]| {
            [
                piece_starts::<false, false>(t, 0),
                piece_starts::<true, false>(t, 0),
            ]
        };
        if CLASSIFIES {
            assert_eq!(starts(&text), [None; 2]); // one piece: no start to give
            text[30] = b'.';
            assert_eq!(starts(&text), [Some(1 | 1 << 30); 2]); // `.aaa` from 30
            text[30] = b'a';
        }
        assert_eq!(starts(&text[..64]), [None; 2]);
        text[31] = 0xc3;
        assert_eq!(starts(&text), [None; 2]);
        text[31] = b'a';
        if CLASSIFIES {
            // Later in the block, or after it, a non-ASCII byte ends the block early.
            text[21] = b' ';
            text[40] = 0xc3;
            assert_eq!(starts(&text), [Some(1 | 1 << 21); 2]);
            text[40] = b'a';
            text[64] = 0xc3;
            assert_eq!(starts(&text), [Some(1 | 1 << 21); 2]);
        }
    }

    /// The starts a block gives are the regex's piece boundaries in it (those the block
    /// settles: up to its last start), for both kinds of pattern.
    #[test]
    fn a_block_of_english_gives_the_regex_boundaries() {
        use super::super::{CL100K, O200K};
        let text = "He said: \"don't\" -- it's 12345 (or 6)\n\n  and THE EndGame's.\n\tNext  words";
        assert!(text.len() > 64);
        for (pattern, starts) in [
            (CL100K, piece_starts::<false, false>(text.as_bytes(), 0)),
            (O200K, piece_starts::<true, false>(text.as_bytes(), 0)),
        ] {
            if !CLASSIFIES {
                assert_eq!(starts, None);
                continue;
            }
            let starts = starts.expect("a block of plain ASCII");
            let regex = fancy_regex::Regex::new(pattern).unwrap();
            let mut expected = 0u64;
            for m in regex.find_iter(text) {
                let start = m.unwrap().start();
                if start < 64 {
                    expected |= 1 << start;
                }
            }
            let settled = u64::MAX >> starts.leading_zeros();
            assert!(starts.count_ones() > 15, "{starts:#b}");
            assert_eq!(starts, expected & settled, "{starts:#b} vs {expected:#b}");
        }
    }

    #[test]
    fn digit_groups_start_every_three_digits_of_each_run() {
        // Runs of 7 digits from bit 0 and of 4 digits from bit 10, and one reaching bit 63.
        let d = 0b111_1111 | 0b1111 << 10 | 0b11111 << 59;
        assert_eq!(digit_groups(d), 1 << 3 | 1 << 6 | 1 << 13 | 1 << 62);
    }
}
