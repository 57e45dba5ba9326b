//! The word table: each distinct pre-tokenized word with its count, in order of first
//! appearance. Built streaming from files (plain or gzip), from texts, or given directly.
//! Memory grows with the number of distinct words, never with the corpus size.
//!
//! Counting is parallel and deterministic: input is cut into chunks at safe boundaries,
//! each chunk is counted into its own ordered table on a rayon thread, and the tables are
//! merged in input order, so the result (order included) does not depend on thread count.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, Read};
use std::rc::Rc;

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxBuildHasher;

use crate::error::{Error, Location, Result};
use crate::normalize::Normalizer;
use crate::pretokenize::PreTokenizer;

/// How much text one parallel task counts; large enough to amortize the merge of its table.
const TASK_BYTES: usize = 1 << 20;
/// How much of a file is read before it is counted in parallel.
const READ_BYTES: usize = 16 << 20;

/// Words are kept back to back in one string, found through a hash table of their
/// indices: no allocation per word, and a look-up reads one compact entry (its stored
/// hash settles most mismatches) before comparing bytes.
#[derive(Default, Clone)]
pub struct WordTable {
    text: String,
    entries: Vec<Entry>,
    index: HashTable<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    start: usize,
    len: usize,
    count: u64,
}

impl std::fmt::Debug for WordTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

fn hash_word(word: &str) -> u64 {
    FxBuildHasher.hash_one(word)
}

impl WordTable {
    pub fn add(&mut self, word: &str, count: u64) {
        self.add_hashed(word, hash_word(word), count);
    }

    fn add_hashed(&mut self, word: &str, hash: u64, count: u64) {
        let (text, entries) = (&self.text, &mut self.entries);
        let found = self.index.find(hash, |&i| {
            let e = &entries[i as usize];
            e.hash == hash && &text[e.start..e.start + e.len] == word
        });
        if let Some(&i) = found {
            let c = &mut entries[i as usize].count;
            *c = c.saturating_add(count);
            return;
        }
        let i = entries.len() as u32;
        entries.push(Entry {
            hash,
            start: self.text.len(),
            len: word.len(),
            count,
        });
        self.text.push_str(word);
        self.index
            .insert_unique(hash, i, |&j| entries[j as usize].hash);
    }

    /// Adds `other`'s words after this table's, keeping first-appearance order.
    pub fn absorb(&mut self, other: WordTable) {
        if self.entries.is_empty() {
            *self = other;
            return;
        }
        for e in &other.entries {
            let word = &other.text[e.start..e.start + e.len];
            self.add_hashed(word, e.hash, e.count);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.entries
            .iter()
            .map(|e| (&self.text[e.start..e.start + e.len], e.count))
    }
}

/// What to do with bytes that are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utf8Errors {
    Strict,
    Replace,
}

#[derive(Debug, Clone)]
pub struct Counter {
    pub normalizer: Normalizer,
    pub pre_tokenizer: PreTokenizer,
    pub table: WordTable,
}

impl Counter {
    pub fn new(normalizer: Normalizer, pre_tokenizer: PreTokenizer) -> Self {
        Counter {
            normalizer,
            pre_tokenizer,
            table: WordTable::default(),
        }
    }

    fn count_text(&self, text: &str, table: &mut WordTable) -> Result<()> {
        let normalized = self.normalizer.normalize(text);
        self.pre_tokenizer
            .for_each_piece(&normalized, |piece| table.add(piece, 1))
    }

    /// Counts independent texts (documents); pieces never span two texts.
    pub fn add_texts(&mut self, texts: &[&str]) -> Result<()> {
        let mut tasks: Vec<&[&str]> = Vec::new();
        let (mut start, mut size) = (0, 0);
        for (i, t) in texts.iter().enumerate() {
            size += t.len();
            if size >= TASK_BYTES {
                tasks.push(&texts[start..=i]);
                (start, size) = (i + 1, 0);
            }
        }
        tasks.push(&texts[start..]);
        let table = count_parts(&tasks, |group, table| {
            group
                .iter()
                .try_for_each(|text| self.count_text(text, table))
        })?;
        self.table.absorb(table);
        Ok(())
    }

    /// Counts a text that is one document, cutting it into parallel tasks at line starts.
    fn add_document(&mut self, text: &str) -> Result<()> {
        let parts = split_at_line_starts(text, TASK_BYTES, &self.pre_tokenizer);
        let table = count_parts(&parts, |part, table| self.count_text(part, table))?;
        self.table.absorb(table);
        Ok(())
    }

    /// Streams a file (gzip detected by its magic bytes) into the table. `on_progress`
    /// receives the number of file bytes consumed so far.
    pub fn add_file(
        &mut self,
        path: &str,
        errors: Utf8Errors,
        on_progress: &mut dyn FnMut(u64),
    ) -> Result<()> {
        let file = File::open(path).map_err(|e| Error::io(path, &e))?;
        let consumed = Rc::new(Cell::new(0u64));
        let mut raw = ProgressReader {
            inner: BufReader::new(file),
            consumed: consumed.clone(),
        };
        let mut magic = [0u8; 2];
        let n = read_full(&mut raw, &mut magic).map_err(|e| Error::io(path, &e))?;
        let gz = n == 2 && magic == [0x1f, 0x8b];
        let head = std::io::Cursor::new(magic[..n].to_vec());
        let mut reader: Box<dyn Read> = if gz {
            Box::new(flate2::read::MultiGzDecoder::new(head.chain(&mut raw)))
        } else {
            Box::new(head.chain(&mut raw))
        };
        let what = if gz { " of the decompressed data" } else { "" };
        let mut pending: Vec<u8> = Vec::new();
        let mut offset: u64 = 0; // bytes of text before `pending`
        let mut line: u64 = 1; // line number at the start of `pending`
        let mut buf = vec![0u8; READ_BYTES];
        loop {
            let n = read_full(&mut reader, &mut buf).map_err(|e| {
                if gz {
                    Error::format(
                        format!(
                            "{path}: corrupt or truncated gzip data after {} bytes{what} ({e})",
                            offset + pending.len() as u64
                        ),
                        Location {
                            path: Some(path.to_string()),
                            ..Location::default()
                        },
                    )
                } else {
                    Error::io(path, &e)
                }
            })?;
            pending.extend_from_slice(&buf[..n]);
            let at_end = n == 0;
            // Count whole lines only, cut where pre-tokenizing apart changes no piece; if
            // no line break in the buffer allows that (all lines start with whitespace),
            // at the last one anyway, so that memory stays bounded. The rest waits for
            // more input.
            let cut = if at_end {
                pending.len()
            } else {
                let safe = memchr::memrchr_iter(b'\n', &pending)
                    .find_map(|i| self.pre_tokenizer.line_cut(&pending, i));
                match safe.or_else(|| memchr::memrchr(b'\n', &pending).map(|i| i + 1)) {
                    Some(c) => c,
                    None => continue,
                }
            };
            let text = decode_utf8(&pending[..cut], errors, path, offset, line, what)?;
            self.add_document(&text)?;
            line += memchr::memchr_iter(b'\n', &pending[..cut]).count() as u64;
            offset += cut as u64;
            pending.drain(..cut);
            on_progress(consumed.get());
            if at_end {
                return Ok(());
            }
        }
    }
}

/// Counts each part into its own table, in parallel, and combines the tables in input
/// order. Neighbouring tables are combined on the threads that counted them (combining is
/// associative), so that only the last combination runs alone. The leftmost error wins.
pub fn count_parts<T: Sync>(
    parts: &[T],
    count: impl Fn(&T, &mut WordTable) -> Result<()> + Sync,
) -> Result<WordTable> {
    parts
        .par_iter()
        .map(|part| {
            let mut table = WordTable::default();
            count(part, &mut table)?;
            Ok(table)
        })
        .reduce(
            || Ok(WordTable::default()),
            |left, right| {
                let mut left = left?;
                left.absorb(right?);
                Ok(left)
            },
        )
}

/// Counts the file bytes read, for progress (the decoders in between hide the position).
struct ProgressReader<R> {
    inner: R,
    consumed: Rc<Cell<u64>>,
}

impl<R: Read> Read for ProgressReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.set(self.consumed.get() + n as u64);
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends; returns the number of bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn decode_utf8<'a>(
    bytes: &'a [u8],
    errors: Utf8Errors,
    path: &str,
    offset: u64,
    line: u64,
    what: &str,
) -> Result<std::borrow::Cow<'a, str>> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(std::borrow::Cow::Borrowed(s)),
        Err(_) if errors == Utf8Errors::Replace => Ok(String::from_utf8_lossy(bytes)),
        Err(e) => {
            let at = e.valid_up_to();
            let bad_line = line + memchr::memchr_iter(b'\n', &bytes[..at]).count() as u64;
            let bad: Vec<String> = bytes[at..bytes.len().min(at + 4)]
                .iter()
                .map(|b| format!("{b:#04x}"))
                .collect();
            let byte = offset + at as u64;
            Err(Error::format(
                format!(
                    "{path}: invalid UTF-8 at byte {byte}{what} (line {bad_line}): bytes {}; \
                     convert the file to UTF-8 or pass errors=\"replace\"",
                    bad.join(" ")
                ),
                Location {
                    path: Some(path.to_string()),
                    line: Some(bad_line),
                    offset: Some(byte),
                },
            ))
        }
    }
}

/// Cuts `text` into parts of about `size` bytes, each cut next to a line break where
/// `pre` allows it (`PreTokenizer::line_cut`: the next line starts with a non-whitespace
/// character, and no piece spans the cut), so counting the parts separately gives the same
/// table as counting the whole.
pub fn split_at_line_starts<'t>(text: &'t str, size: usize, pre: &PreTokenizer) -> Vec<&'t str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    while text.len() - start > size {
        let cut = memchr::memchr_iter(b'\n', &bytes[start + size..])
            .find_map(|i| pre.line_cut(bytes, start + size + i));
        // A cut is a character boundary: next to a `\n` byte.
        match cut.and_then(|c| Some((text.get(start..c)?, c))) {
            Some((part, c)) => {
                parts.push(part);
                start = c;
            }
            None => break,
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pretokenize::{CL100K, GPT2, O200K};

    fn counter() -> Counter {
        Counter::new(Normalizer::default(), PreTokenizer::Whitespace)
    }

    #[test]
    fn counts_in_first_appearance_order() {
        let mut c = counter();
        c.add_texts(&["low lower low", "newest low"]).unwrap();
        let got: Vec<_> = c.table.iter().collect();
        assert_eq!(got, [("low", 3), ("lower", 1), ("newest", 1)]);
    }

    #[test]
    fn split_keeps_all_text_and_cuts_at_line_starts() {
        let text = "ab\n cd\nef\n\ngh\nij";
        for size in 1..text.len() + 2 {
            let parts = split_at_line_starts(text, size, &PreTokenizer::Whitespace);
            assert_eq!(parts.concat(), text);
            for p in &parts[1..] {
                assert!(!p.starts_with(char::is_whitespace), "{parts:?}");
            }
        }
    }

    #[test]
    fn split_parts_give_the_pieces_of_the_whole() {
        // Blank lines, trailing spaces and `/` lines: the places where a cut right after
        // the line break would change gpt2's or o200k's pieces.
        let text = "a  \nb\n\nc.\n/d\n\ne \r\nf!\n\n//g\nh\n";
        let pieces = |pre: &PreTokenizer, t: &str| {
            let mut out = Vec::new();
            pre.for_each_piece(t, |p| out.push(p.to_string())).unwrap();
            out
        };
        for pattern in [GPT2, CL100K, O200K] {
            let pre = PreTokenizer::regex(pattern).unwrap();
            let whole = pieces(&pre, text);
            for size in 1..text.len() {
                let parts = split_at_line_starts(text, size, &pre);
                assert_eq!(parts.concat(), text);
                let apart: Vec<String> = parts.iter().flat_map(|p| pieces(&pre, p)).collect();
                assert_eq!(apart, whole, "{pattern} size {size}: {parts:?}");
            }
        }
    }

    #[test]
    fn invalid_utf8_names_byte_and_line() {
        let dir = std::env::temp_dir().join(format!("subword-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.txt");
        std::fs::write(&path, b"ok line\nsecond \xff line\n").unwrap();
        let mut c = counter();
        let err = c
            .add_file(path.to_str().unwrap(), Utf8Errors::Strict, &mut |_| {})
            .unwrap_err();
        assert!(err.message.contains("byte 15"), "{}", err.message);
        assert!(err.message.contains("line 2"), "{}", err.message);
        let mut c = counter();
        c.add_file(path.to_str().unwrap(), Utf8Errors::Replace, &mut |_| {})
            .unwrap();
        assert_eq!(c.table.len(), 4); // ok line second \u{fffd}
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
