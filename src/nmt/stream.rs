//! Text read in blocks: the subword-nmt commands get a file (or stdin) as byte blocks and
//! work on whole lines of UTF-8 text. `TextBlocks` keeps the partial last line of a block
//! for the next one and checks the text, with errors that name the input, byte and line.
//! Bytes stay in Rust from the read to the output: no Python `str` is made for the text.

use crate::error::{Error, Result};

pub struct TextBlocks {
    /// The input's name in messages.
    name: String,
    /// The partial last line of the blocks so far.
    pending: Vec<u8>,
    /// Input bytes before `pending`.
    offset: u64,
    /// The line number at the start of `pending`.
    line: u64,
    done: bool,
}

impl TextBlocks {
    pub fn new(name: &str) -> Self {
        TextBlocks {
            name: name.to_string(),
            pending: Vec::new(),
            offset: 0,
            line: 1,
            done: false,
        }
    }

    /// Takes the next block of input (an empty block: the input has ended) and hands the
    /// text of the whole lines now complete to `work`: up to the last `\n`, or all that is
    /// left at the end. `work` is not called when there is no such text.
    pub fn push<R>(
        &mut self,
        block: &[u8],
        work: impl FnOnce(&str) -> Result<R>,
    ) -> Result<Option<R>> {
        if self.done {
            return Err(Error::invalid(format!(
                "{}: internal: input read after its end",
                self.name
            )));
        }
        let end = block.is_empty();
        self.done = end;
        // Most blocks are used in place; only a partial line is copied.
        let whole: &[u8] = if self.pending.is_empty() {
            block
        } else {
            self.pending.extend_from_slice(block);
            &self.pending
        };
        let cut = if end {
            whole.len()
        } else {
            memchr::memrchr(b'\n', whole).map_or(0, |i| i + 1)
        };
        let result = if cut == 0 {
            None
        } else {
            let text = std::str::from_utf8(&whole[..cut]).map_err(|e| {
                let at = e.valid_up_to();
                let line = self.line + memchr::memchr_iter(b'\n', &whole[..at]).count() as u64;
                Error::invalid(format!(
                    "{}: invalid UTF-8 at byte {} (line {line}); convert it to UTF-8",
                    self.name,
                    self.offset + at as u64
                ))
            })?;
            let result = work(text)?;
            self.line += memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
            self.offset += cut as u64;
            Some(result)
        };
        if self.pending.is_empty() {
            self.pending.extend_from_slice(&block[cut..]);
        } else {
            self.pending.drain(..cut);
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(blocks: &[&[u8]]) -> Result<Vec<String>> {
        let mut reader = TextBlocks::new("in.txt");
        let mut out = Vec::new();
        for block in blocks.iter().chain([&&b""[..]]) {
            if let Some(text) = reader.push(block, |t| Ok(t.to_string()))? {
                out.push(text);
            }
        }
        Ok(out)
    }

    #[test]
    fn whole_lines_per_block_and_the_rest_at_the_end() {
        let got = texts(&[b"ab\ncd", b"ef\r", b"\ngh\n", b"ij"]).unwrap();
        assert_eq!(got, ["ab\n", "cdef\r\ngh\n", "ij"]);
        assert!(texts(&[]).unwrap().is_empty());
        assert_eq!(texts(&["é\n".as_bytes(), b"x"]).unwrap(), ["é\n", "x"]);
    }

    #[test]
    fn invalid_utf8_names_byte_and_line() {
        let err = texts(&[b"ok\nfine\n", b"bad \xff here\n"]).unwrap_err();
        assert!(
            err.message
                .contains("in.txt: invalid UTF-8 at byte 12 (line 3)"),
            "{}",
            err.message
        );
        // A multi-byte character cut at the end of the input is invalid too.
        let err = texts(&[b"a\n\xc3"]).unwrap_err();
        assert!(err.message.contains("byte 2 (line 2)"), "{}", err.message);
    }

    #[test]
    fn reading_after_the_end_is_an_error() {
        let mut reader = TextBlocks::new("x");
        reader.push(b"", |_| Ok(())).unwrap();
        assert!(reader.push(b"a", |_| Ok(())).is_err());
    }
}
