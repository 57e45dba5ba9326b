//! `.tiktoken` files: one `<base64 token bytes> <rank>` line per token, read strictly (as
//! tiktoken's loader reads them, but every malformed line is an error naming its line).

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::error::{Error, Location, Result};
pub use crate::vocab::Ranks;
use crate::vocab::TokenBytes;
use base64::alphabet::STANDARD;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// Python's `base64.b64decode(..., validate=True)`: the standard alphabet, padding required,
/// and stray bits after the last byte ignored.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Ranks far past the number of tokens are refused (a forged rank must not make a table of
/// gigabytes): the same limit as `subword.config.id_limit`.
pub fn id_limit(entries: usize) -> u64 {
    2 * entries as u64 + 1024
}

/// The tokens and ranks of a `.tiktoken` file, in file order. Lines are split as Python's
/// `bytes.splitlines` splits them and blank lines skipped, as tiktoken does. `specials`
/// (text, id) may not reuse a rank. `path` names the file in errors.
pub fn read_ranks(data: &[u8], path: &str, specials: &[(String, u32)]) -> Result<Ranks> {
    // Base64 is 4 bytes for 3: a token's bytes take at most 3/4 of its line.
    let mut tokens = TokenBytes::with_capacity(data.len() / 12, data.len() / 2);
    let mut ranks: Vec<u64> = Vec::with_capacity(data.len() / 12);
    let mut line_numbers: Vec<u64> = Vec::with_capacity(data.len() / 12);
    for (lineno, line) in lines(data) {
        if line.is_empty() {
            continue;
        }
        let rank = tokens
            .push_with(|buf| parse_line(line, buf))
            .map_err(|m| line_error(path, lineno, m))?;
        ranks.push(rank);
        line_numbers.push(lineno);
    }
    // Duplicates are found by sorting (a hash map of 200k byte strings cost more than the
    // parsing); the error names the first line that repeats a rank or a token, as a reader
    // going line by line would.
    // (the entry that repeats, the entry it repeats); sorted stably, a group's entries keep
    // file order, so only a group's first two entries can be the earliest repeat.
    let first_repeat = |order: &[u32], same: &dyn Fn(usize, usize) -> bool| {
        let mut found: Option<(usize, usize)> = None;
        for pair in order.windows(2) {
            let (a, b) = (pair[0] as usize, pair[1] as usize);
            if same(a, b) && found.is_none_or(|(at, _)| b < at) {
                found = Some((b, a));
            }
        }
        found
    };
    // Files list ranks in increasing order: then none repeats and nothing needs sorting.
    let rank_repeat = if ranks.windows(2).all(|w| w[0] < w[1]) {
        None
    } else {
        let mut by_rank: Vec<u32> = (0..ranks.len() as u32).collect();
        by_rank.sort_by_key(|&i| ranks[i as usize]);
        first_repeat(&by_rank, &|a, b| ranks[a] == ranks[b])
    };
    let by_token = side_by_side(&tokens, |t| FxBuildHasher.hash_one(t));
    let token_repeat = first_repeat(&by_token, &|a, b| tokens[a] == tokens[b]);
    let repeat = match (rank_repeat, token_repeat) {
        (Some(r), Some(t)) if t.0 < r.0 => Some((t, false)),
        (Some(r), _) => Some((r, true)),
        (None, Some(t)) => Some((t, false)),
        (None, None) => None,
    };
    if let Some(((at, earliest), is_rank)) = repeat {
        let earlier = line_numbers[earliest];
        let message = if is_rank {
            format!("rank {} already given on line {earlier}", ranks[at])
        } else {
            format!(
                "token {} already given on line {earlier}",
                py_bytes(&tokens[at])
            )
        };
        return Err(line_error(path, line_numbers[at], message));
    }
    let limit = id_limit(tokens.len());
    if let Some(at) = ranks.iter().position(|&rank| rank >= limit) {
        return Err(line_error(
            path,
            line_numbers[at],
            format!(
                "rank {} is far beyond the {} ranks in the file",
                ranks[at],
                tokens.len()
            ),
        ));
    }
    let mut single = [false; 256];
    for token in tokens.iter() {
        if let [b] = token[..] {
            single[b as usize] = true;
        }
    }
    if let Some(missing) = (0..=255u8).find(|&b| !single[b as usize]) {
        let others = single.iter().filter(|&&s| !s).count() - 1;
        return Err(file_error(
            path,
            format!(
                "byte 0x{missing:02x} ({}) has no rank (and {others} more); a byte-level \
                 vocabulary ranks every single byte",
                py_bytes(&[missing])
            ),
        ));
    }
    let ranks = Ranks {
        tokens,
        // Every rank is below the limit, which fits in 32 bits for any file that fits in memory.
        ranks: ranks.into_iter().map(|rank| rank as u32).collect(),
    };
    check_special_ids(&ranks.ranks, specials, path)?;
    Ok(ranks)
}

/// Special tokens may not take a rank's id, nor each other's. Every rank is below the id
/// limit (checked before), so the ranks' ids are a table of flags, not a set of 200k
/// hashed ints (about 3 ms of loading o200k).
fn check_special_ids(ranks: &[u32], specials: &[(String, u32)], path: &str) -> Result<()> {
    if specials.is_empty() {
        return Ok(());
    }
    let size = ranks.iter().map(|&r| r as usize + 1).max().unwrap_or(0);
    let mut used = vec![false; size];
    for rank in ranks {
        used[*rank as usize] = true;
    }
    let mut beyond = std::collections::HashSet::new();
    for (text, id) in specials {
        let taken = match used.get_mut(*id as usize) {
            Some(flag) => std::mem::replace(flag, true),
            None => !beyond.insert(*id),
        };
        if taken {
            return Err(file_error(
                path,
                format!("special token {} has id {id}, already a rank", py_str(text)),
            ));
        }
    }
    Ok(())
}

/// The indices of `tokens`, equal tokens side by side in file order. They are sorted by
/// (hash, index), a sort of plain integer pairs; different tokens with one hash (a rare run
/// of three or more) could keep equal ones apart, so such runs are ordered by their bytes.
fn side_by_side(tokens: &TokenBytes, hash: impl Fn(&[u8]) -> u64) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (hash(t), i as u32))
        .collect();
    keyed.sort_unstable();
    let mut start = 0;
    while start < keyed.len() {
        let h = keyed[start].0;
        let end = start + keyed[start..].iter().take_while(|k| k.0 == h).count();
        if end - start > 2 {
            // Stable: equal tokens keep file order.
            keyed[start..end].sort_by(|a, b| tokens[a.1 as usize].cmp(&tokens[b.1 as usize]));
        }
        start = end;
    }
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Lines as `bytes.splitlines` gives them (ends: `\n`, `\r`, `\r\n`), numbered from 1.
fn lines(data: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut rest = data;
    let mut lineno = 0u64;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        lineno += 1;
        let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = match rest.get(end..end + 2) {
            Some(b"\r\n") => 2,
            _ if end < rest.len() => 1,
            _ => 0,
        };
        rest = &rest[end + skip..];
        Some((lineno, line))
    })
}

/// One line's rank; its token's bytes are appended to `token`.
fn parse_line(line: &[u8], token: &mut Vec<u8>) -> std::result::Result<u64, String> {
    // `bytes.split()`: runs of ASCII whitespace separate fields.
    let mut fields = line
        .split(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .filter(|f| !f.is_empty());
    let (Some(encoded), Some(rank_text), None) = (fields.next(), fields.next(), fields.next())
    else {
        return Err(format!(
            "expected '<base64 token> <rank>', got {}",
            py_bytes(&line[..line.len().min(80)])
        ));
    };
    let before = token.len();
    BASE64.decode_vec(encoded, token).map_err(|_| {
        format!(
            "bad base64 token {}",
            py_bytes(&encoded[..encoded.len().min(80)])
        )
    })?;
    if token.len() == before {
        return Err("empty token".into());
    }
    let rank = if rank_text.iter().all(u8::is_ascii_digit) {
        // Digits only, so the one failure is overflow: a rank that large is past any limit.
        std::str::from_utf8(rank_text)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    } else {
        return Err(format!(
            "rank {} is not a non-negative integer",
            py_bytes(&rank_text[..rank_text.len().min(40)])
        ));
    };
    Ok(rank)
}

fn line_error(path: &str, line: u64, message: String) -> Error {
    let location = Location {
        path: Some(path.to_string()),
        line: Some(line),
        offset: None,
    };
    Error::format(format!("{path}, line {line}: {message}"), location)
}

fn file_error(path: &str, message: String) -> Error {
    let location = Location {
        path: Some(path.to_string()),
        ..Location::default()
    };
    Error::format(format!("{path}: {message}"), location)
}

/// `repr(bytes)` as Python writes it, so messages read as they did from Python.
pub fn py_bytes(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}

/// `repr(str)` for the ASCII-printable strings special tokens are; others escaped roughly.
fn py_str(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{}'", text.escape_default())
    } else {
        format!("{text:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(extra: &[&str]) -> Vec<u8> {
        let mut text: Vec<String> = (0..=255u8)
            .map(|b| format!("{} {b}", BASE64.encode([b])))
            .collect();
        text.extend(extra.iter().map(|s| s.to_string()));
        (text.join("\n") + "\n").into_bytes()
    }

    #[test]
    fn reads_ranks_and_skips_blank_lines() {
        let ranks = read_ranks(&file(&["YWI= 256", "", "YWJj 257"]), "f", &[]).unwrap();
        assert_eq!(ranks.len(), 258);
        let pairs: Vec<(&[u8], u32)> = ranks.iter().collect();
        assert_eq!(pairs[256], (&b"ab"[..], 256));
        assert_eq!(pairs[257], (&b"abc"[..], 257));
    }

    #[test]
    fn equal_tokens_meet_in_file_order_even_when_all_hashes_collide() {
        let tokens: TokenBytes = [&b"b"[..], b"a", b"c", b"b", b"a", b"b"]
            .into_iter()
            .collect();
        for hash in [|_: &[u8]| 0u64, |t: &[u8]| t[0] as u64] {
            assert_eq!(side_by_side(&tokens, hash), vec![1, 4, 0, 3, 5, 2]);
        }
        let two: TokenBytes = [b"x", b"y"].into_iter().collect();
        assert_eq!(side_by_side(&two, |_| 7), vec![0, 1]);
    }

    #[test]
    fn line_ends_as_splitlines() {
        let lines: Vec<_> = lines(b"a\r\nb\rc\n\nd")
            .map(|(n, l)| (n, l.to_vec()))
            .collect();
        let want: Vec<(u64, Vec<u8>)> = vec![
            (1, b"a".to_vec()),
            (2, b"b".to_vec()),
            (3, b"c".to_vec()),
            (4, b"".to_vec()),
            (5, b"d".to_vec()),
        ];
        assert_eq!(lines, want);
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (line, want) in [
            ("!!!! 256", "line 257: bad base64 token b'!!!!'"),
            ("YWI=", "line 257: expected"),
            ("YWI= x", "not a non-negative integer"),
            ("YWI 5", "bad base64"),
            ("YWI= 5", "rank 5 already given on line 6"),
            ("YQ== 256", "token b'a' already given on line 98"),
            (
                "YWI= 256\nYWI= 256",
                "line 258: rank 256 already given on line 257",
            ),
            ("YWI= 99999999999999999999999", "far beyond"),
        ] {
            let err = read_ranks(&file(&[line]), "f", &[]).unwrap_err();
            assert!(err.message.contains(want), "{line}: {}", err.message);
        }
    }

    #[test]
    fn a_missing_byte_is_named() {
        let data = b"YQ== 0\n";
        let err = read_ranks(data, "f", &[]).unwrap_err();
        assert!(err
            .message
            .starts_with("f: byte 0x00 (b'\\x00') has no rank (and 254 more)"));
    }

    #[test]
    fn a_special_token_may_not_take_a_rank() {
        let err = read_ranks(&file(&[]), "f", &[("<|x|>".into(), 5)]).unwrap_err();
        assert_eq!(
            err.message,
            "f: special token '<|x|>' has id 5, already a rank"
        );
        assert!(read_ranks(&file(&[]), "f", &[("<|x|>".into(), 256)]).is_ok());
        // Nor each other's, next to the ranks or far past them.
        for id in [256, 100_000] {
            let two = [("<|x|>".into(), id), ("<|y|>".into(), id)];
            let err = read_ranks(&file(&[]), "f", &two).unwrap_err();
            assert!(err.message.contains("'<|y|>' has id"), "{}", err.message);
        }
    }

    #[test]
    fn python_reprs() {
        assert_eq!(py_bytes(b"a'b"), "b\"a'b\"");
        assert_eq!(py_bytes(b"\x00\n\\"), "b'\\x00\\n\\\\'");
    }
}
