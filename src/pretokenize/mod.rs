//! Stage 2 — pre-tokenize: split normalized text into the pieces ("words") that BPE works
//! inside. Merges never cross a piece boundary.
//!
//! `Whitespace` is the classic split (Python's `str.split()`: runs of Unicode whitespace
//! separate words and are dropped). `Regex` keeps every match and drops nothing between
//! matches only if the pattern covers all text, as the GPT-style patterns do. `Fast` is a
//! hand-written splitter for one of the fixed gpt2/cl100k/o200k/llama3 patterns, giving the same
//! pieces as `Regex` on that pattern 15 to 40 times faster (see `fast.rs`); `Clip` is one
//! for CLIP's pattern (`clip.rs`).
//!
//! Unicode versions: `\p{L}`, `\p{N}` and `\s` follow `regex-syntax`'s tables (Unicode
//! 16.0), as tiktoken's Rust regex does, except in the `clip` pattern, which follows the
//! Python `regex` module that CLIP's reference uses (`clip_classes.rs`, generated).

mod classes;
mod clip_classes;
mod fast;

use fancy_regex::Regex;
use rayon::prelude::*;

use crate::error::{Error, Result};

pub use fast::{send_clip_pieces, FastPattern, CL100K, GPT2, LLAMA3, O200K};

/// What receives the pieces of a text. Any `FnMut(&str)` is one.
pub trait PieceSink<'t> {
    fn piece(&mut self, piece: &'t str);

    /// `piece`, told also where the piece starts in the text being split (the hand-written
    /// splitters know it; a sink that needs it then need not work it out).
    #[inline(always)]
    fn piece_at(&mut self, piece: &'t str, _start: usize) {
        self.piece(piece)
    }
}

impl<'t, F: FnMut(&'t str)> PieceSink<'t> for F {
    #[inline(always)]
    fn piece(&mut self, piece: &'t str) {
        self(piece)
    }
}

/// CLIP's pattern as `subword.pre_tokenizers.patterns.PATTERNS["clip"]` writes it.
pub const CLIP: &str = concat!(
    r"<\|[s\u017f]tartoftext\|>|<\|endoftext\|>|'[s\u017f]|'t|'re|'ve|'m|'ll|'d|[\p{L}]+",
    r"|[\p{N}]|[^\s\p{L}\p{N}\u0345]+"
);

/// `CLIP` with `\p{L}`, `\p{N}` and `\s` spelled out as the Python `regex` module sees them
/// (a newer Unicode than `regex-syntax`'s: letters assigned in between would otherwise split
/// differently from CLIP's reference). Each class sits inside brackets in the pattern, so
/// its ranges can replace it in place.
fn clip_with_its_classes() -> String {
    fn ranges(table: &[u32]) -> String {
        let mut out = String::with_capacity(table.len() * 8);
        for pair in table.chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            if a == b {
                out.push_str(&format!("\\x{{{a:X}}}"));
            } else {
                out.push_str(&format!("\\x{{{a:X}}}-\\x{{{b:X}}}"));
            }
        }
        out
    }
    CLIP.replace(r"\p{L}", &ranges(clip_classes::LETTER))
        .replace(r"\p{N}", &ranges(clip_classes::NUMBER))
        .replace(r"\s", &ranges(clip_classes::SPACE))
}

#[derive(Debug, Clone)]
pub enum PreTokenizer {
    Whitespace,
    Regex(Regex),
    Fast(FastPattern),
    /// CLIP's pattern (`CLIP`), by hand: the pieces of `Regex` on it with its classes.
    Clip,
    /// SentencePiece text (spaces already written as `▁`): with `cut`, a piece ends before
    /// each `▁` that follows another character, where no vocabulary entry can cross (the
    /// model is checked for that when built); without, the whole text is one piece.
    Metaspace {
        cut: bool,
    },
}

impl PreTokenizer {
    /// The pre-tokenizer for `pattern`: the fast splitter when `pattern` is exactly one of
    /// the fixed patterns, fancy-regex otherwise.
    pub fn regex(pattern: &str) -> Result<Self> {
        if pattern == CLIP {
            classes::clip_classes();
            return Ok(PreTokenizer::Clip);
        }
        match FastPattern::from_regex(pattern) {
            Some(fast) => {
                // Built now rather than by the first call, which users often time alone.
                classes::classes();
                Ok(PreTokenizer::Fast(fast))
            }
            None => Self::regex_only(pattern),
        }
    }

    /// Always fancy-regex, even for the fixed patterns: the reference that the fast
    /// splitters are tested and benchmarked against. CLIP's pattern is compiled with its
    /// classes written out.
    pub fn regex_only(pattern: &str) -> Result<Self> {
        if pattern == CLIP {
            return Self::compile(&clip_with_its_classes());
        }
        Self::compile(pattern)
    }

    fn compile(pattern: &str) -> Result<Self> {
        Regex::new(pattern)
            .map(PreTokenizer::Regex)
            .map_err(|e| Error::invalid(format!("invalid pre-tokenizer regex {pattern:?}: {e}")))
    }

    /// Calls `f` with each piece of `text`, in order.
    pub fn for_each_piece<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) -> Result<()> {
        self.send_pieces(text, &mut f)
    }

    /// `for_each_piece` into a `PieceSink` (the fast splitters inline an inlined sink into
    /// their loop).
    #[inline]
    pub fn send_pieces<'t>(&self, text: &'t str, sink: &mut impl PieceSink<'t>) -> Result<()> {
        let mut f = |piece| sink.piece(piece);
        match self {
            PreTokenizer::Whitespace => {
                text.split(is_python_whitespace)
                    .filter(|w| !w.is_empty())
                    .for_each(f);
                Ok(())
            }
            PreTokenizer::Regex(re) => {
                for m in re.find_iter(text) {
                    let m = m.map_err(|e| {
                        Error::invalid(format!("pre-tokenizer regex failed on this text: {e}"))
                    })?;
                    if !m.as_str().is_empty() {
                        f(m.as_str());
                    }
                }
                Ok(())
            }
            PreTokenizer::Fast(fast) => fast.send_pieces(text, sink),
            PreTokenizer::Clip => send_clip_pieces(text, sink),
            PreTokenizer::Metaspace { cut } => {
                if !text.is_empty() {
                    if *cut {
                        metaspace_pieces(text, f);
                    } else {
                        f(text);
                    }
                }
                Ok(())
            }
        }
    }

    /// Where text may be cut next to the line break at byte `newline` of `bytes` so that
    /// the two sides, pre-tokenized apart, give the pieces of the whole; `None` if not next
    /// to this one. Parallel counting (`count.rs`) cuts only there.
    ///
    /// Every pre-tokenizer needs the character after the break to be known and not
    /// whitespace. Then the fixed patterns differ (each checked against the regex in tests):
    /// - gpt2 cuts before the break. After it, the first part would end in a whitespace run
    ///   that `\s++$` takes whole, where the whole text ends the run's piece before its last
    ///   character: `"a \n" + "b"` gives `" \n"` where `"a \nb"` gives `" "`, `"\n"`.
    /// - o200k cuts after it unless a `/` follows: punctuation takes `[\r\n/]*`, across it.
    /// - cl100k, the whitespace split and other regexes cut after it (other regexes are
    ///   assumed to treat lines like the fixed patterns do; nothing can check them).
    pub fn line_cut(&self, bytes: &[u8], newline: usize) -> Option<usize> {
        if bytes.get(newline) != Some(&b'\n') {
            return None;
        }
        let after = newline + 1;
        let &next = bytes.get(after)?;
        let (flags, _) = classes::classes().at(bytes, after)?;
        // \s, and the separators U+001C..U+001F that Python's split takes as whitespace.
        if flags & classes::WS != 0 || (0x1c..=0x1f).contains(&next) {
            return None;
        }
        let fixed = match self {
            PreTokenizer::Metaspace { .. } => return None,
            PreTokenizer::Whitespace | PreTokenizer::Clip => None,
            PreTokenizer::Regex(re) => FastPattern::from_regex(re.as_str()),
            PreTokenizer::Fast(fast) => Some(*fast),
        };
        match fixed {
            Some(FastPattern::Gpt2) => Some(newline),
            Some(FastPattern::O200k) if next == b'/' => None,
            _ => Some(after),
        }
    }

    /// The pieces of `text`, owned; for tests and the Python `pretokenize` helper.
    pub fn pieces(&self, text: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        self.for_each_piece(text, |p| out.push(p.to_string()))?;
        Ok(out)
    }
}

/// Cuts `text` before each `▁` (U+2581) that follows a character other than `▁`.
fn metaspace_pieces<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    const SPACE: &[u8] = "\u{2581}".as_bytes();
    let bytes = text.as_bytes();
    let mut start = 0;
    for at in memchr::memmem::find_iter(bytes, SPACE) {
        if at > start && !bytes[..at].ends_with(SPACE) {
            f(&text[start..at]);
            start = at;
        }
    }
    f(&text[start..]);
}

/// Where `a` and `b` first split `text` differently: the index of the first piece that
/// differs (or that one of them lacks), `None` when they agree. Compares without
/// collecting, so differential tests over whole corpora stay cheap.
pub fn first_difference(a: &PreTokenizer, b: &PreTokenizer, text: &str) -> Result<Option<usize>> {
    let mut theirs: Vec<&str> = Vec::new();
    b.for_each_piece(text, |p| theirs.push(p))?;
    let mut index = 0;
    let mut differs = None;
    a.for_each_piece(text, |p| {
        if differs.is_none() && theirs.get(index) != Some(&p) {
            differs = Some(index);
        }
        index += 1;
    })?;
    if differs.is_none() && index != theirs.len() {
        differs = Some(index.min(theirs.len()));
    }
    Ok(differs)
}

/// Checks the fast splitter for `pattern` against fancy-regex on every text, in parallel:
/// the first (text index, piece index) where they split differently, `None` when they agree
/// everywhere. For the differential tests over whole corpora.
pub fn check_fast_against_regex(pattern: &str, texts: &[&str]) -> Result<Option<(usize, usize)>> {
    let fast = PreTokenizer::regex(pattern)?;
    if !matches!(fast, PreTokenizer::Fast(_) | PreTokenizer::Clip) {
        return Err(Error::invalid(
            "this pattern has no fast splitter; expected one of the fixed gpt2/cl100k/o200k/llama3/clip patterns",
        ));
    }
    let regex = PreTokenizer::regex_only(pattern)?;
    let found: Vec<Result<Option<(usize, usize)>>> = texts
        .par_iter()
        .enumerate()
        .map(|(i, text)| Ok(first_difference(&fast, &regex, text)?.map(|piece| (i, piece))))
        .collect();
    for result in found {
        if let Some(at) = result? {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// Python's `str.isspace()`: Unicode White_Space plus the ASCII separators U+001C..U+001F,
/// so that splitting agrees with `str.split()` (and with subword-nmt and with the reference
/// code of Sennrich et al. (2016)).
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(p: &PreTokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        p.for_each_piece(text, |s| out.push(s.to_string())).unwrap();
        out
    }

    #[test]
    fn whitespace_like_python_split() {
        let p = PreTokenizer::Whitespace;
        assert_eq!(
            pieces(&p, "  low\tlower\n\u{3000}newest "),
            ["low", "lower", "newest"]
        );
        assert!(pieces(&p, " \n ").is_empty());
        assert_eq!(pieces(&p, "a\u{1f}b\u{85}c"), ["a", "b", "c"]);
    }

    #[test]
    fn line_cuts_keep_the_pieces_of_the_whole() {
        let text = "a \nb\n\nc.\n/d\n  e!\n\n\r\nf\u{3000}\ng\n\u{1f}h\n\u{a0}i 'x\n's\n";
        let bytes = text.as_bytes();
        let mut pres = vec![PreTokenizer::Whitespace];
        for fast in FastPattern::ALL {
            pres.push(PreTokenizer::Fast(fast));
            pres.push(PreTokenizer::regex_only(fast.regex()).unwrap());
        }
        pres.push(PreTokenizer::Clip);
        pres.push(PreTokenizer::regex_only(CLIP).unwrap());
        for pre in &pres {
            let whole = pieces(pre, text);
            let mut cuts = 0;
            for newline in memchr::memchr_iter(b'\n', bytes) {
                let Some(cut) = pre.line_cut(bytes, newline) else {
                    continue;
                };
                cuts += 1;
                let mut apart = pieces(pre, &text[..cut]);
                apart.extend(pieces(pre, &text[cut..]));
                assert_eq!(apart, whole, "{pre:?} cut at {cut}");
            }
            assert!(cuts >= 3, "{pre:?}");
        }
    }

    #[test]
    fn line_cut_refuses_the_places_that_change_pieces() {
        let gpt2 = PreTokenizer::Fast(FastPattern::Gpt2);
        let cl100k = PreTokenizer::Fast(FastPattern::Cl100k);
        let o200k = PreTokenizer::Fast(FastPattern::O200k);
        assert_eq!(gpt2.line_cut(b"a \nb", 2), Some(2));
        assert_eq!(cl100k.line_cut(b"a \nb", 2), Some(3));
        assert_eq!(o200k.line_cut(b"x.\n/y", 2), None);
        assert_eq!(cl100k.line_cut(b"x.\n/y", 2), Some(3));
        for pre in [&gpt2, &cl100k, &o200k, &PreTokenizer::Whitespace] {
            assert_eq!(pre.line_cut(b"a\n", 1), None, "next character unknown");
            assert_eq!(pre.line_cut(b"a\n b", 1), None);
            assert_eq!(pre.line_cut(b"a\n\xe3\x80\x80", 1), None, "U+3000");
            assert_eq!(pre.line_cut(b"a\nb", 0), None, "not a line break");
            assert!(
                pre.line_cut(b"a\n\xff", 1).is_some(),
                "invalid UTF-8 is no panic"
            );
        }
    }

    #[test]
    fn regex_keeps_matches() {
        let p = PreTokenizer::regex(r"\s?\w+|\s+").unwrap();
        assert_eq!(pieces(&p, "a bc  d"), ["a", " bc", "  ", "d"]);
        assert!(PreTokenizer::regex("(").is_err());
    }
}

#[cfg(test)]
mod clip_tests {
    use super::*;

    #[test]
    fn clip_classes_follow_the_newer_unicode() {
        // U+0558 is a letter from Unicode 17.0 on, unassigned in regex-syntax's 16.0 tables.
        let pre = PreTokenizer::regex(CLIP).unwrap();
        let mut pieces = Vec::new();
        pre.for_each_piece("a\u{558}b 1\u{11DE0} x'sy", |p| pieces.push(p))
            .unwrap();
        assert_eq!(pieces, ["a\u{558}b", "1", "\u{11DE0}", "x", "'s", "y"]);
    }

    #[test]
    fn clip_by_hand_gives_the_regex_pieces() {
        let fast = PreTokenizer::regex(CLIP).unwrap();
        assert!(matches!(fast, PreTokenizer::Clip));
        let regex = PreTokenizer::regex_only(CLIP).unwrap();
        let texts = [
            "<|startoftext|>a photo of a cat<|endoftext|>",
            "<|\u{17f}tartoftext|> <|STARTOFTEXT|> <|endoftext|x <| |> <<|endoftext|>>",
            "!<|endoftext|> x<|endoftext|>y 1<|endoftext|>",
            "it's we'll they've i'm you're he'd 'ſ 's 'S 'T ''s '' 'x 'l 'r 've",
            "a\u{345}b \u{345}\u{345} é\u{301} \u{301}a ǅx ʰa 々 12345 ½ Ⅻ ٣٤٥",
            "  \t\n\r\u{b}\u{c}\u{1c}\u{1f}\u{85}\u{a0}\u{2028}\u{3000}x  ",
            "a--b...c!!!? (hello) [world] #tag @user 😀😀 a😀 👍🏽 🇫🇷 한국어 中文",
            "",
            " ",
            "\u{345}",
        ];
        for text in texts {
            assert_eq!(
                first_difference(&fast, &regex, text).unwrap(),
                None,
                "{text:?}: {:?} vs {:?}",
                fast.pieces(text),
                regex.pieces(text)
            );
        }
        assert_eq!(
            fast.pieces("<|startoftext|>don't 42 x\u{345}y<|endoftext|>")
                .unwrap(),
            [
                "<|startoftext|>",
                "don",
                "'t",
                "4",
                "2",
                "x",
                "y",
                "<|endoftext|>"
            ]
        );
    }
}
