//! o200k's pattern (`super::O200K`) by hand: its words are cased (capitals first, then
//! lower-case letters, or capitals only), so its word branch differs from cl100k's; the
//! rest (numbers by three, punctuation, whitespace) follows the same rules.

use super::{
    ascii_lowercase, ascii_uppercase, contraction, is_other, is_word_prefix, Scan, HIGH, LOWER,
    NUMBER,
};
use crate::pretokenize::classes::UPPER;

impl Scan<'_> {
    /// o200k, seven alternatives without possessives (see `O200K`): words whose capitals
    /// come first (`[upper]*[lower]+`), then words of capitals only (`[upper]+[lower]*`),
    /// each with an optional leading non-letter and trailing contraction; numbers by three;
    /// punctuation with trailing `[\r\n/]*`; then whitespace.
    #[inline(always)]
    pub(super) fn o200k(&self, p: usize) -> usize {
        let Some(&byte) = self.b.get(p) else {
            return p;
        };
        // ASCII first: most pieces of English are ASCII words, alone or after one ASCII
        // leader, and the word alternatives cannot match at an ASCII non-letter followed by
        // an ASCII non-letter (no such character is in either word class).
        if byte.is_ascii() {
            let next = self.b.get(p + 1);
            let start = if byte.is_ascii_alphabetic() {
                Some(p)
            } else if next.is_some_and(u8::is_ascii_alphabetic) {
                is_word_prefix(self.c.ascii[byte as usize]).then_some(p + 1)
            } else {
                None
            };
            match start {
                Some(s) => {
                    if let Some(e) = self.o200k_ascii_word(s) {
                        return e;
                    }
                }
                None if next.is_none_or(u8::is_ascii) => {
                    return self.o200k_not_word(p, byte, self.c.ascii[byte as usize])
                }
                None => {}
            }
        }
        let Some((f, n)) = self.at(p) else {
            return p;
        };
        // The optional leader is tried taken first, then not taken; the second only helps
        // when the leader is a mark (\p{M} is in both word classes but not in \p{L}).
        let leader = is_word_prefix(f);
        if leader {
            if let Some(e) = self.o200k_lower_word(p + n) {
                return e;
            }
        }
        if let Some(e) = self.o200k_lower_word(p) {
            return e;
        }
        if leader {
            if let Some(e) = self.o200k_upper_word(p + n) {
                return e;
            }
        }
        if let Some(e) = self.o200k_upper_word(p) {
            return e;
        }
        self.o200k_not_word(p, byte, f)
    }

    /// o200k at `p` once neither word alternative matched: numbers, punctuation, whitespace.
    #[inline(always)]
    fn o200k_not_word(&self, p: usize, byte: u8, f: u8) -> usize {
        if f & NUMBER != 0 {
            return self.up_to_three_numbers(p);
        }
        // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
        let punct = self.punctuation_start(p, byte, f);
        if let Some(start) = punct {
            let mut end = self.run(start, is_other);
            while matches!(self.b.get(end), Some(b'\r' | b'\n' | b'/')) {
                end += 1;
            }
            return end;
        }
        // Whitespace: `\s*[\r\n]+` up to its last line break (wherever the run ends; there
        // is no `$` branch before it here); `\s+(?!\S)` all of it at the end of the text,
        // else all but the last character; `\s+` a single one.
        let (end, last, newline) = self.spaces(p);
        if let Some(e) = newline {
            return e;
        }
        if end == self.b.len() || last == p {
            end
        } else {
            last
        }
    }

    /// Both word alternatives from `s`, an ASCII letter, when the word is ASCII to its end:
    /// capitals then lower case (the first alternative), or capitals alone (the second: no
    /// ASCII capital is also lower, so the first fails). `None` when a non-ASCII character
    /// follows, which the general path must classify.
    #[inline(always)]
    fn o200k_ascii_word(&self, s: usize) -> Option<usize> {
        if let Some(word) = self
            .b
            .get(s..s + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            // Most words end within 8 bytes: both runs found from one load, no loop.
            let x = u64::from_le_bytes(word);
            let uppers = (!ascii_uppercase(x) & HIGH).trailing_zeros() / 8;
            if uppers < 8 {
                let stop = !ascii_lowercase(x) & HIGH & (HIGH << (8 * uppers));
                let end = if stop != 0 {
                    s + (stop.trailing_zeros() / 8) as usize
                } else {
                    self.lowers(s + 8)
                };
                if self.b.get(end).is_some_and(|c| !c.is_ascii()) {
                    return None;
                }
                return Some(end + contraction(self.b, end, true));
            }
        }
        let upper_end = if self.b.get(s).is_some_and(u8::is_ascii_lowercase) {
            s // the usual case, not worth an 8-byte test
        } else {
            self.ascii_run(s, ascii_uppercase, |c| c.is_ascii_uppercase())
        };
        let end = match self.b.get(upper_end) {
            Some(c) if c.is_ascii_lowercase() => self.lowers(upper_end),
            Some(c) if !c.is_ascii() => return None,
            _ => upper_end,
        };
        if self.b.get(end).is_some_and(|c| !c.is_ascii()) {
            return None;
        }
        Some(end + contraction(self.b, end, true))
    }

    /// `[upper]*[lower]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` from `s`, where upper is
    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` and lower `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
    ///
    /// `[upper]*` takes its whole run, then backs off one character at a time until a lower
    /// character follows. Right after the run that is a character that is lower but not upper
    /// (Ll), and `[lower]+` takes all that follows. Inside the run it is the last character
    /// that is in both classes (Lm, Lo, M), and `[lower]+` takes that one only: the run's
    /// later characters are Lu/Lt, and what ends the run is not lower either.
    #[inline(always)]
    fn o200k_lower_word(&self, s: usize) -> Option<usize> {
        let mut i = s;
        let mut last_both = None;
        loop {
            match self.b.get(i) {
                // No ASCII capital is lower too, so ASCII ones go 8 at a time untracked.
                Some(c) if c.is_ascii_uppercase() => {
                    i = self.ascii_run(i, ascii_uppercase, |c| c.is_ascii_uppercase())
                }
                Some(c) if !c.is_ascii() => match self.at(i) {
                    Some((f, n)) if f & UPPER != 0 => {
                        i += n;
                        if f & LOWER != 0 {
                            last_both = Some(i);
                        }
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        let end = if self.next_is(i, |f| f & LOWER != 0) {
            self.lowers(i)
        } else {
            last_both?
        };
        Some(end + contraction(self.b, end, true))
    }

    /// `[upper]+[lower]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` from `s`: all greedy, nothing after.
    #[inline(always)]
    fn o200k_upper_word(&self, s: usize) -> Option<usize> {
        let upper_end = self.class_run(s, UPPER, ascii_uppercase, |c| c.is_ascii_uppercase());
        if upper_end == s {
            return None;
        }
        let end = self.lowers(upper_end);
        Some(end + contraction(self.b, end, true))
    }
}
