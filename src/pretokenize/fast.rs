//! Hand-written splitters for the fixed GPT-style patterns (o200k's words in `o200k.rs`, and
//! CLIP's pattern in `clip.rs`), giving exactly the pieces fancy-regex's `find_iter` gives
//! for the pattern, on any input.
//!
//! Each pattern is an alternation tried at the end of the previous piece. Every character
//! starts a match of some alternative (letters, numbers, "other" and whitespace each have
//! one), so the matches tile the text and a splitter only has to answer "where does the
//! match that starts at `p` end?". Each answer below follows the regex's own order: the
//! alternatives in turn, and inside one, greedy quantifiers backing off one character at a
//! time until what follows matches. Possessive quantifiers (`++`, `?+`) never back off.
//!
//! Invariants that keep it fast: cl100k, Llama 3 and o200k split text 64 bytes at a time
//! where its characters allow (`blocks.rs`: ASCII and the letters `known_bytes` names;
//! where pieces start, for the whole block, from bit masks of its classes); otherwise
//! classifying a character is one table load, ASCII letters are scanned 8 bytes at a time,
//! and each pattern's "end of the match at p" is inlined into the splitting loop; the
//! callback is generic (no allocation per piece). Why, with the figures: see
//! docs/performance.md#pre-tokenization.

use super::classes::{classes, Classes, CLIP_DROPPED, LETTER, LOWER, NEWLINE, NUMBER, WS};
use super::PieceSink;
use crate::error::{Error, Result};

/// tiktoken's r50k/p50k/gpt2 pattern (possessive form).
pub const GPT2: &str =
    r"'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s";

/// tiktoken's cl100k_base pattern.
pub const CL100K: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+",
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// Llama 3's pattern (`llama_models/llama3/tokenizer.py`): cl100k's in its older,
/// non-possessive form, which differs from tiktoken's current cl100k only at the end of
/// the text: a whitespace run with a line break is cut after its last line break (`\s*[\r\n]+`)
/// where cl100k's `\s++$` takes it whole.
pub const LLAMA3: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
);

/// tiktoken's o200k_base pattern.
pub const O200K: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+(?!\S)",
    r"|\s+"
);

/// A pattern with a hand-written splitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastPattern {
    Gpt2,
    Cl100k,
    O200k,
    Llama3,
}

impl FastPattern {
    pub const ALL: [FastPattern; 4] = [
        FastPattern::Gpt2,
        FastPattern::Cl100k,
        FastPattern::O200k,
        FastPattern::Llama3,
    ];

    /// The splitter for `pattern` if it is exactly one of the three strings, else `None`.
    pub fn from_regex(pattern: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.regex() == pattern)
    }

    pub fn regex(self) -> &'static str {
        match self {
            FastPattern::Gpt2 => GPT2,
            FastPattern::Cl100k => CL100K,
            FastPattern::O200k => O200K,
            FastPattern::Llama3 => LLAMA3,
        }
    }

    /// The name `python/subword/formats/patterns.py` gives the pattern.
    pub fn name(self) -> &'static str {
        match self {
            FastPattern::Gpt2 => "gpt2",
            FastPattern::Cl100k => "cl100k",
            FastPattern::O200k => "o200k",
            FastPattern::Llama3 => "llama3",
        }
    }

    /// Calls `f` with each piece of `text`, in order; the pieces concatenate to `text`.
    pub fn for_each_piece<'t>(self, text: &'t str, mut f: impl FnMut(&'t str)) -> Result<()> {
        self.send_pieces(text, &mut f)
    }

    /// Gives each piece of `text` to `sink`, in order. With an `#[inline(always)]` sink the
    /// splitting and the work per piece compile to one loop, with no call per piece.
    #[inline(always)]
    pub fn send_pieces<'t>(self, text: &'t str, sink: &mut impl PieceSink<'t>) -> Result<()> {
        let scan = Scan {
            c: classes(),
            b: text.as_bytes(),
        };
        // One loop per pattern, so the match on the pattern is not paid per piece; the
        // block patterns' loops once more for CPUs with AVX-512BW.
        #[cfg(target_arch = "x86_64")]
        if wide_blocks() {
            // SAFETY (each call): the CPU has AVX-512F and AVX-512BW.
            match self {
                FastPattern::Cl100k => return unsafe { scan.split_wide::<Cl100kEnd>(text, sink) },
                FastPattern::O200k => return unsafe { scan.split_wide::<O200kEnd>(text, sink) },
                FastPattern::Llama3 => return unsafe { scan.split_wide::<Llama3End>(text, sink) },
                FastPattern::Gpt2 => {}
            }
        }
        match self {
            FastPattern::Gpt2 => scan.split::<Gpt2End, false>(text, sink),
            FastPattern::Cl100k => scan.split::<Cl100kEnd, false>(text, sink),
            FastPattern::O200k => scan.split::<O200kEnd, false>(text, sink),
            FastPattern::Llama3 => scan.split::<Llama3End, false>(text, sink),
        }
    }
}

/// Whether the CPU has AVX-512F and AVX-512BW, for blocks classified 64 bytes at once (the
/// two ways agree: `blocks.rs`'s tests compare them on every byte).
#[cfg(target_arch = "x86_64")]
pub(super) fn wide_blocks() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

/// "Where does the match that starts at `p` end?" for one pattern, as a type, so that the
/// splitting loop is compiled once per pattern with the answer inlined (a function passed
/// as a value was left as a call per piece).
trait PatternEnd {
    fn end(scan: &Scan<'_>, p: usize) -> usize;
    /// Whether text is split 64 bytes at a time (`blocks.rs`) where it can be.
    const BLOCKS: bool = false;
    /// Where pieces start in the 64 bytes from `at` (see `blocks::piece_starts`; `WIDE`:
    /// with AVX-512BW).
    #[inline(always)]
    fn block_starts<const WIDE: bool>(_: &[u8], _: usize) -> Option<u64> {
        None
    }
}

struct Gpt2End;
struct Cl100kEnd;
struct O200kEnd;
struct Llama3End;

impl PatternEnd for Gpt2End {
    #[inline(always)]
    fn end(scan: &Scan<'_>, p: usize) -> usize {
        scan.gpt2(p)
    }
}

impl PatternEnd for Cl100kEnd {
    const BLOCKS: bool = true;
    #[inline(always)]
    fn block_starts<const WIDE: bool>(b: &[u8], at: usize) -> Option<u64> {
        blocks::piece_starts::<false, WIDE>(b, at)
    }
    #[inline(always)]
    fn end(scan: &Scan<'_>, p: usize) -> usize {
        scan.cl100k(p)
    }
}

impl PatternEnd for Llama3End {
    const BLOCKS: bool = true;
    #[inline(always)]
    fn block_starts<const WIDE: bool>(b: &[u8], at: usize) -> Option<u64> {
        blocks::piece_starts::<false, WIDE>(b, at)
    }
    #[inline(always)]
    fn end(scan: &Scan<'_>, p: usize) -> usize {
        scan.cl100k_rules(p, false)
    }
}

impl PatternEnd for O200kEnd {
    const BLOCKS: bool = true;
    #[inline(always)]
    fn block_starts<const WIDE: bool>(b: &[u8], at: usize) -> Option<u64> {
        blocks::piece_starts::<true, WIDE>(b, at)
    }
    #[inline(always)]
    fn end(scan: &Scan<'_>, p: usize) -> usize {
        scan.o200k(p)
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// For 8 bytes at once: the high bit of each byte set where the byte is in `lo..=hi`
/// (`hi` < 0x80; bytes of 0x80 and above never are). Adding `0x80 - lo` to the low 7 bits
/// sets the high bit exactly when the byte is `>= lo`, with no carry into the next byte.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let low7 = x & !HIGH;
    let at_least_lo = low7 + ONES * (0x80 - lo) as u64;
    let above_hi = low7 + ONES * (0x7f - hi) as u64;
    at_least_lo & !above_hi & !x & HIGH
}

#[inline(always)]
fn ascii_letters(x: u64) -> u64 {
    // `| 0x20` lower-cases letters and sends no other ASCII byte into a..z.
    in_range(x | (ONES * 0x20), b'a', b'z')
}

#[inline(always)]
fn ascii_lowercase(x: u64) -> u64 {
    in_range(x, b'a', b'z')
}

#[inline(always)]
fn ascii_uppercase(x: u64) -> u64 {
    in_range(x, b'A', b'Z')
}

struct Scan<'a> {
    c: &'a Classes,
    b: &'a [u8],
}

/// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls, emoji...
#[inline(always)]
fn is_other(f: u8) -> bool {
    f & (WS | LETTER | NUMBER) == 0
}

/// `[^\r\n\p{L}\p{N}]`: the one character cl100k and o200k allow before a word.
#[inline(always)]
fn is_word_prefix(f: u8) -> bool {
    f & (LETTER | NUMBER | NEWLINE) == 0
}

impl Scan<'_> {
    /// `split` compiled for AVX-512BW (blocks classified 64 bytes at once).
    ///
    /// # Safety
    /// Only on a CPU with AVX-512F and AVX-512BW (`wide_blocks`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn split_wide<'t, P: PatternEnd>(
        &self,
        text: &'t str,
        sink: &mut impl PieceSink<'t>,
    ) -> Result<()> {
        self.split::<P, true>(text, sink)
    }

    #[inline(always)]
    fn split<'t, P: PatternEnd, const WIDE: bool>(
        &self,
        text: &'t str,
        sink: &mut impl PieceSink<'t>,
    ) -> Result<()> {
        let mut p = 0;
        // Blocks are not tried again below this: the last one was left to the byte splitter.
        let mut bytewise_until = 0;
        while p < self.b.len() {
            if P::BLOCKS && p >= bytewise_until {
                match P::block_starts::<WIDE>(self.b, p) {
                    Some(starts) => {
                        p = self.send_block::<P>(text, p, starts, sink);
                        continue;
                    }
                    // Characters the block does not take, or one piece fills it: the next
                    // 64 bytes (and the piece that crosses their end) piece by piece.
                    None => bytewise_until = p + 64,
                }
            }
            p = self.send_piece::<P>(text, p, sink)?;
        }
        Ok(())
    }

    /// Sends the piece at `p`; returns its end.
    #[inline(always)]
    fn send_piece<'t, P: PatternEnd>(
        &self,
        text: &'t str,
        p: usize,
        sink: &mut impl PieceSink<'t>,
    ) -> Result<usize> {
        let e = P::end(self, p);
        // Every branch consumes at least the character at `p`: this keeps a mistake from
        // looping or reading past the text.
        if e <= p || e > self.b.len() {
            return Err(Error::invalid(format!(
                "internal error: fast pre-tokenizer stopped at byte {p} (end {e})"
            )));
        }
        debug_assert!(text.is_char_boundary(e));
        // SAFETY: `p < e <= len`, both character boundaries: every branch steps by ASCII
        // bytes or whole UTF-8 sequences (tests: against the regex on every corpus and
        // arbitrary text; the assertion in debug builds). Checking them again cost 5% of the
        // instructions (docs/performance.md#where-a-pieces-time-goes-cachegrind).
        sink.piece_at(unsafe { text.get_unchecked(p..e) }, p);
        Ok(e)
    }

    /// Sends the pieces of a block from `at` whose ends `starts` gives (bit `i`: a piece
    /// starts at `at + i`); returns the last start (it may be the text's end), where the
    /// next block begins.
    #[inline(always)]
    fn send_block<'t, P: PatternEnd>(
        &self,
        text: &'t str,
        at: usize,
        starts: u64,
        sink: &mut impl PieceSink<'t>,
    ) -> usize {
        let (mut from, mut rest) = (at, starts & !1);
        while rest != 0 {
            let to = at + rest.trailing_zeros() as usize;
            debug_assert_eq!(to, P::end(self, from), "block from {at}, piece at {from}");
            // SAFETY: `at <= from < to <= min(at + 64, len)`, and `piece_starts` sets starts
            // only before the block's classes stop (`known`: ASCII bytes and whole characters
            // of the letters `known_bytes` names) or at the text's end, so both are character
            // boundaries.
            sink.piece_at(unsafe { text.get_unchecked(from..to) }, from);
            from = to;
            rest &= rest - 1;
        }
        from
    }

    #[inline(always)]
    fn at(&self, i: usize) -> Option<(u8, usize)> {
        self.c.at(self.b, i)
    }

    /// Does the character at `i` exist and satisfy `test`?
    #[inline(always)]
    fn next_is(&self, i: usize, test: impl Fn(u8) -> bool) -> bool {
        self.at(i).is_some_and(|(f, _)| test(f))
    }

    /// Where ` ?[^\s\p{L}\p{N}]` starts its run of punctuation at `p` (after the optional
    /// space), if it matches there; shared by the cl100k and o200k punctuation branches.
    #[inline(always)]
    fn punctuation_start(&self, p: usize, byte: u8, f: u8) -> Option<usize> {
        if byte == b' ' && self.next_is(p + 1, is_other) {
            Some(p + 1)
        } else if is_other(f) {
            Some(p)
        } else {
            None
        }
    }

    /// The end of the run of characters from `i` whose flags satisfy `keep`.
    #[inline(always)]
    fn run(&self, mut i: usize, keep: impl Fn(u8) -> bool) -> usize {
        while let Some((f, n)) = self.at(i) {
            if !keep(f) {
                break;
            }
            i += n;
        }
        i
    }

    /// The end of the run of ASCII bytes from `i` that `mask` marks (8 at a time) and `is`
    /// accepts (the last few, one at a time).
    ///
    /// Why: a byte-at-a-time loop pays a mispredicted branch at the end of every word; the
    /// 8-byte test finds the end of a typical English word in one step (see the notes).
    #[inline(always)]
    fn ascii_run(&self, mut i: usize, mask: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> usize {
        while let Some(word) = self
            .b
            .get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let stop = !mask(u64::from_le_bytes(word)) & HIGH;
            if stop != 0 {
                return i + (stop.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while self.b.get(i).is_some_and(|&c| is(c)) {
            i += 1;
        }
        i
    }

    /// The end of the run of characters from `i` in class `flag`, whose ASCII members
    /// `mask` and `is` pick out: ASCII 8 bytes at a time, the rest one character at a time.
    #[inline(always)]
    fn class_run(
        &self,
        mut i: usize,
        flag: u8,
        mask: impl Fn(u64) -> u64,
        is: impl Fn(u8) -> bool,
    ) -> usize {
        loop {
            // It stops at the end, at an ASCII byte not in the class, or at a non-ASCII one:
            // only the last needs a look (most runs end at a space or punctuation).
            i = self.ascii_run(i, &mask, &is);
            if self.b.get(i).is_none_or(u8::is_ascii) {
                return i;
            }
            // Non-ASCII members one by one, back to the 8-byte steps at an ASCII member.
            loop {
                match self.b.get(i) {
                    Some(c) if !c.is_ascii() => match self.at(i) {
                        Some((f, n)) if f & flag != 0 => i += n,
                        _ => return i,
                    },
                    Some(&c) if is(c) => break,
                    _ => return i,
                }
            }
        }
    }

    /// `\p{L}++` from `i`.
    #[inline(always)]
    fn letters(&self, i: usize) -> usize {
        self.class_run(i, LETTER, ascii_letters, |c| c.is_ascii_alphabetic())
    }

    /// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` from `i`.
    #[inline(always)]
    fn lowers(&self, i: usize) -> usize {
        self.class_run(i, LOWER, ascii_lowercase, |c| c.is_ascii_lowercase())
    }

    /// `\p{N}{1,3}`: up to three numbers from `i` (the first one is known to be there).
    #[inline(always)]
    fn up_to_three_numbers(&self, mut i: usize) -> usize {
        for _ in 0..3 {
            match self.at(i) {
                Some((f, n)) if f & NUMBER != 0 => i += n,
                _ => break,
            }
        }
        i
    }

    /// The whitespace run from `p`: its end, the start of its last character, and the end of
    /// its last `\r` or `\n` if it has one.
    #[inline(always)]
    fn spaces(&self, p: usize) -> (usize, usize, Option<usize>) {
        let (mut i, mut last, mut newline) = (p, p, None);
        while let Some((f, n)) = self.at(i) {
            if f & WS == 0 {
                break;
            }
            last = i;
            i += n;
            if f & NEWLINE != 0 {
                newline = Some(i);
            }
        }
        (i, last, newline)
    }

    /// gpt2: `'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`
    #[inline(always)]
    fn gpt2(&self, p: usize) -> usize {
        let (Some(&byte), Some((f, _))) = (self.b.get(p), self.at(p)) else {
            return p;
        };
        if byte == b'\'' {
            let k = contraction(self.b, p, false);
            if k > 0 {
                return p + k;
            }
        }
        // ` ?X++`: a space joins the run of letters, numbers or others right after it.
        if byte == b' ' {
            if let Some((g, _)) = self.at(p + 1) {
                if g & LETTER != 0 {
                    return self.letters(p + 1);
                }
                if g & NUMBER != 0 {
                    return self.run(p + 1, |f| f & NUMBER != 0);
                }
                if is_other(g) {
                    return self.run(p + 1, is_other);
                }
            }
        }
        if f & LETTER != 0 {
            return self.letters(p);
        }
        if f & NUMBER != 0 {
            return self.run(p, |f| f & NUMBER != 0);
        }
        if is_other(f) {
            return self.run(p, is_other);
        }
        // Whitespace. `\s++$`: all of it at the end of the text; `\s+(?!\S)`: all but the
        // last character, which a following non-space may take as its ` ?`; `\s`: one.
        let (end, last, _) = self.spaces(p);
        if end == self.b.len() || last == p {
            end
        } else {
            last
        }
    }

    /// cl100k: `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+`
    /// `| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
    #[inline(always)]
    fn cl100k(&self, p: usize) -> usize {
        self.cl100k_rules(p, true)
    }

    /// cl100k with its `\s++$` rule (`run_to_end`), or Llama 3 without it (see `LLAMA3`).
    #[inline(always)]
    fn cl100k_rules(&self, p: usize, run_to_end: bool) -> usize {
        let (Some(&byte), Some((f, n))) = (self.b.get(p), self.at(p)) else {
            return p;
        };
        if byte == b'\'' {
            let k = contraction(self.b, p, true);
            if k > 0 {
                return p + k;
            }
        }
        // `[^\r\n\p{L}\p{N}]?+\p{L}++`: one non-letter may lead a word. Possessive, but
        // giving the leader back could not help: it is not a letter itself.
        if is_word_prefix(f) && self.next_is(p + n, |g| g & LETTER != 0) {
            return self.letters(p + n);
        }
        if f & LETTER != 0 {
            return self.letters(p);
        }
        if f & NUMBER != 0 {
            return self.up_to_three_numbers(p);
        }
        // ` ?[^\s\p{L}\p{N}]++[\r\n]*+`
        let punct = self.punctuation_start(p, byte, f);
        if let Some(start) = punct {
            let end = self.run(start, is_other);
            return self.run(end, |f| f & NEWLINE != 0);
        }
        // Whitespace: `\s++$` all of it at the end of the text; `\s*[\r\n]` up to its last
        // line break (the greedy `\s*` backs off to it); `\s+(?!\S)` all but the last
        // character; `\s` one.
        let (end, last, newline) = self.spaces(p);
        if run_to_end && end == self.b.len() {
            return end;
        }
        if let Some(e) = newline {
            return e;
        }
        // `\s+(?!\S)` takes a run that ends the text whole (Llama 3 gets here).
        if end == self.b.len() || last == p {
            end
        } else {
            last
        }
    }
}

/// The letter of a contraction at `b[i]` and its length: ASCII as it is, or lower-cased when
/// `fold`. Under `(?i:...)` simple case folding also maps `ſ` (U+017F) to `s`; no other
/// character folds to one of s, t, r, e, v, m, l, d (checked against regex-syntax in the
/// tests), and the Kelvin sign's `k` is not used.
#[inline(always)]
fn contraction_letter(b: &[u8], i: usize, fold: bool) -> Option<(u8, usize)> {
    match *b.get(i)? {
        c if c.is_ascii() => Some((if fold { c.to_ascii_lowercase() } else { c }, 1)),
        0xc5 if fold && b.get(i + 1) == Some(&0xbf) => Some((b's', 2)),
        _ => None,
    }
}

/// The length of `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll` or `'d` at `b[i]`, 0 if none.
#[inline(always)]
fn contraction(b: &[u8], i: usize, fold: bool) -> usize {
    if b.get(i) != Some(&b'\'') {
        return 0;
    }
    let Some((first, n1)) = contraction_letter(b, i + 1, fold) else {
        return 0;
    };
    let second = match first {
        b's' | b'd' | b'm' | b't' => return 1 + n1,
        b'l' => b'l',
        b'v' | b'r' => b'e',
        _ => return 0,
    };
    match contraction_letter(b, i + 1 + n1, fold) {
        Some((c, n2)) if c == second => 1 + n1 + n2,
        _ => 0,
    }
}

#[path = "blocks.rs"]
mod blocks;

#[path = "o200k.rs"]
mod o200k;

#[path = "clip.rs"]
mod clip;
pub use clip::send_clip_pieces;

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
