//! The compressor against a simple recounting oracle, round trips, and the decoder's
//! checks on malformed streams.

use super::algorithm::*;
use super::format::*;
use super::*;

/// The steps of compressing `data` in one block: (symbol, pair, data after).
fn steps(data: &[u8]) -> Vec<(u8, (u8, u8), Vec<u8>)> {
    let mut seen = Vec::new();
    compress_with::<Error, _>(data, DEFAULT_BLOCK_SIZE, |step| {
        seen.push((step.symbol, step.pair, step.data.to_vec()));
        Ok(())
    })
    .expect("compress");
    seen
}

/// Shows symbols 0xff, 0xfe, 0xfd as the letters Z, Y, X of the worked example.
fn as_letters(data: &[u8]) -> String {
    data.iter()
        .map(|&b| match b {
            0xff => 'Z',
            0xfe => 'Y',
            0xfd => 'X',
            _ => char::from(b),
        })
        .collect()
}

/// Every pair's count, computed apart from the compressor's code: pairs of two different
/// bytes by adjacency, pairs of one byte by runs (`floor(len / 2)` each).
fn naive_counts(data: &[u8]) -> std::collections::BTreeMap<(u8, u8), usize> {
    let mut counts = std::collections::BTreeMap::new();
    for pair in data.windows(2) {
        if pair[0] != pair[1] {
            *counts.entry((pair[0], pair[1])).or_insert(0) += 1;
        }
    }
    for run in data.chunk_by(|x, y| x == y) {
        if run.len() >= 2 {
            *counts.entry((run[0], run[0])).or_insert(0) += run.len() / 2;
        }
    }
    counts
}

fn most_pair_count(data: &[u8]) -> usize {
    naive_counts(data).values().copied().max().unwrap_or(0)
}

/// The algorithm as the module docs state it, recounting everything at every step.
fn naive_pack(block: &[u8]) -> (Replacements, Vec<u8>) {
    let unused: Vec<u8> = (0..=255u8).rev().filter(|b| !block.contains(b)).collect();
    let mut data = block.to_vec();
    let mut table = Vec::new();
    for symbol in unused {
        let mut best: Option<((u8, u8), usize)> = None;
        for (pair, count) in naive_counts(&data) {
            if best.is_none_or(|(_, c)| count > c) {
                best = Some((pair, count));
            }
        }
        let Some((pair, count)) = best.filter(|&(_, c)| c >= 2) else {
            break;
        };
        let mut next = Vec::new();
        let mut i = 0;
        while i < data.len() {
            if i + 1 < data.len() && (data[i], data[i + 1]) == pair {
                next.push(symbol);
                i += 2;
            } else {
                next.push(data[i]);
                i += 1;
            }
        }
        assert_eq!(data.len() - next.len(), count);
        data = next;
        table.push((symbol, pair));
    }
    (table, data)
}

#[test]
fn incremental_counts_match_recounting() {
    let mut rng = Rng(42);
    let mut counts = PairCounts::new(); // shared: each block must start clean
    for round in 0..400 {
        let alphabet = [1, 2, 3, 4, 6, 26, 200][round % 7];
        let n = rng.below(if round % 5 == 0 { 3000 } else { 300 });
        // Runs of random lengths, to exercise the equal-byte pairs.
        let mut block = Vec::new();
        while block.len() < n {
            let byte = rng.below(alphabet) as u8;
            let run = if rng.below(3) == 0 {
                1 + rng.below(6)
            } else {
                1
            };
            block.extend(std::iter::repeat_n(byte, run));
        }
        let packed = pack_block(&block, 0, &mut counts, |_| Ok::<(), Error>(())).unwrap();
        let (table, data) = naive_pack(&block);
        assert_eq!(packed.table, table, "{block:?}");
        assert_eq!(packed.data, data, "{block:?}");
    }
    let text = &include_bytes!("algorithm.rs")[..3000];
    let packed = pack_block(text, 0, &mut counts, |_| Ok::<(), Error>(())).unwrap();
    assert_eq!((packed.table, packed.data), naive_pack(text));
}

fn round_trip(data: &[u8], block_size: usize) -> Vec<u8> {
    let packed = compress(data, block_size).expect("compress");
    let restored = decompress(&packed).expect("decompress");
    assert_eq!(restored, data, "round trip at block size {block_size}");
    packed
}

/// A small deterministic generator (xorshift64*), for data and fuzzing without crates.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize, alphabet: usize) -> Vec<u8> {
        (0..n).map(|_| self.below(alphabet) as u8).collect()
    }
}

#[test]
fn worked_example_eleven_bytes() {
    let seen = steps(b"aaabdaaabac");
    let shown: Vec<String> = seen.iter().map(|(_, _, d)| as_letters(d)).collect();
    assert_eq!(shown, ["ZabdZabac", "ZYdZYac", "XdXac"]);
    let table: Vec<(u8, (u8, u8))> = seen.iter().map(|(s, p, _)| (*s, *p)).collect();
    assert_eq!(
        table,
        [
            (0xff, (b'a', b'a')),
            (0xfe, (b'a', b'b')),
            (0xfd, (0xff, 0xfe))
        ]
    );
    assert!(most_pair_count(&seen[2].2) < 2);
    round_trip(b"aaabdaaabac", DEFAULT_BLOCK_SIZE);
}

#[test]
fn worked_example_twelve_bytes() {
    let seen = steps(b"aaabdaaabacc");
    let lengths: Vec<usize> = seen.iter().map(|(_, _, d)| d.len()).collect();
    assert_eq!(lengths, [10, 8, 6]);
    assert_eq!(as_letters(&seen[2].2), "XdXacc");
    assert!(most_pair_count(&seen[2].2) < 2);
    round_trip(b"aaabdaaabacc", DEFAULT_BLOCK_SIZE);
}

#[test]
fn runs_count_without_overlap() {
    assert!(steps(b"aaa").is_empty(), "aaa holds aa once");
    let seen = steps(b"aaaa");
    assert_eq!(seen.len(), 1, "aaaa holds aa twice, then ZZ once");
    assert_eq!(seen[0].2, [0xff, 0xff]);
    // 2^k equal bytes halve k times.
    let seen = steps(&[b'x'; 64]);
    assert_eq!(seen.len(), 5);
    assert_eq!(seen[4].2, [0xfb, 0xfb]);
    round_trip(&[b'x'; 64], DEFAULT_BLOCK_SIZE);
}

#[test]
fn ties_take_the_smallest_pair() {
    // ab, bc, cd all occur twice; da once.
    let seen = steps(b"abcdabcd");
    assert_eq!(seen[0].1, (b'a', b'b'));
}

#[test]
fn never_leaves_a_pair_occurring_twice_when_symbols_remain() {
    let mut rng = Rng(7);
    for n in [2, 3, 10, 50, 300] {
        let data = rng.bytes(n, 4);
        let seen = steps(&data);
        let last = seen.last().map_or(data.clone(), |s| s.2.clone());
        assert!(most_pair_count(&last) < 2, "{data:?}");
    }
}

#[test]
fn empty_and_single_byte() {
    let packed = round_trip(b"", DEFAULT_BLOCK_SIZE);
    assert_eq!(packed.len(), 4 + 1 + 2 + 1 + 4);
    round_trip(b"q", DEFAULT_BLOCK_SIZE);
    round_trip(b"\0", 1);
}

#[test]
fn all_byte_values_leave_nothing_to_spend() {
    let all: Vec<u8> = (0..=255u8).collect();
    assert!(steps(&all).is_empty());
    let twice: Vec<u8> = all.iter().chain(all.iter()).copied().collect();
    assert!(
        steps(&twice).is_empty(),
        "pairs repeat, but no byte is unused"
    );
    round_trip(&twice, DEFAULT_BLOCK_SIZE);
    // In blocks of 128, each block has unused bytes again.
    round_trip(&twice, 128);
}

#[test]
fn random_data_round_trips_at_many_block_sizes() {
    let mut rng = Rng(0x5eed);
    for block_size in [1, 2, 3, 7, 64, 1000, DEFAULT_BLOCK_SIZE] {
        for alphabet in [1, 2, 5, 26, 200, 256] {
            let n = rng.below(3000);
            round_trip(&rng.bytes(n, alphabet), block_size);
        }
    }
}

#[test]
fn long_run_packs_small() {
    let data = vec![b'a'; 1 << 20];
    let packed = round_trip(&data, DEFAULT_BLOCK_SIZE);
    assert!(packed.len() < data.len() / 100, "{}", packed.len());
}

#[test]
fn text_gets_smaller() {
    let text = include_str!("algorithm.rs").as_bytes();
    let packed = round_trip(text, DEFAULT_BLOCK_SIZE);
    assert!(
        packed.len() * 10 < text.len() * 8,
        "{} of {}",
        packed.len(),
        text.len()
    );
}

#[test]
fn parallel_and_sequential_agree() {
    let text = include_str!("algorithm.rs").as_bytes();
    for block_size in [100, 4096] {
        let sequential = compress_with::<Error, _>(text, block_size, |_| Ok(())).unwrap();
        assert_eq!(compress(text, block_size).unwrap(), sequential);
    }
}

#[test]
fn callback_errors_stop_the_work() {
    let mut calls = 0;
    let result = compress_with(b"aaabdaaabac", DEFAULT_BLOCK_SIZE, |_| {
        calls += 1;
        Err(Error::invalid("stop"))
    });
    assert_eq!(result.unwrap_err().message, "stop");
    assert_eq!(calls, 1);
}

#[test]
fn block_size_is_checked() {
    assert!(compress(b"abc", 0).is_err());
    assert!(compress(b"abc", MAX_BLOCK_SIZE + 1).is_err());
    assert!(compress(b"abc", MAX_BLOCK_SIZE).is_ok());
}

#[test]
fn crc32_matches_the_standard_check_value() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32(b""), 0);
}

#[test]
fn big_tables_use_the_bitmap_form() {
    // Many distinct repeated pairs in few byte values: more than 32 symbols.
    let mut rng = Rng(3);
    let data = rng.bytes(4000, 8);
    let seen = steps(&data);
    assert!(seen.len() > LIST_TABLE_MAX, "{}", seen.len());
    round_trip(&data, DEFAULT_BLOCK_SIZE);
}

/// A hand-made stream: one block with `table` entries and `packed` data, restoring `length`.
fn stream(length: usize, table: &[(u8, u8, u8)], packed: &[u8], original: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.push(VERSION);
    write_varint(&mut out, DEFAULT_BLOCK_SIZE as u64);
    write_varint(&mut out, length as u64);
    out.extend_from_slice(&crc32(original).to_le_bytes());
    let table: Vec<(u8, (u8, u8))> = table.iter().map(|&(s, l, r)| (s, (l, r))).collect();
    write_table(&mut out, &table);
    write_varint(&mut out, packed.len() as u64);
    out.extend_from_slice(packed);
    out
}

fn error_of(data: &[u8]) -> String {
    decompress(data).expect_err("must be rejected").message
}

#[test]
fn hand_made_stream_decodes() {
    let data = stream(
        5,
        &[(0xff, b'a', b'b'), (0xfe, 0xff, b'c')],
        b"\xfe\xff",
        b"abcab",
    );
    assert_eq!(decompress(&data).unwrap(), b"abcab");
}

#[test]
fn bad_magic_and_version() {
    let good = compress(b"hello hello", DEFAULT_BLOCK_SIZE).unwrap();
    let mut bad = good.clone();
    bad[0] = b'X';
    assert!(error_of(&bad).contains("byte 0: not subword compressed data (bad magic"));
    assert!(error_of(b"SW").contains("byte 0: not subword compressed data (too short"));
    let mut bad = good.clone();
    bad[4] = 9;
    assert!(error_of(&bad).contains("byte 4: unsupported format version 9"));
}

#[test]
fn every_truncation_is_an_error_naming_the_offset() {
    let text = include_str!("algorithm.rs").as_bytes();
    let good = compress(&text[..4000], 1000).unwrap();
    for cut in 0..good.len() {
        let message = error_of(&good[..cut]);
        assert!(message.starts_with("compressed data, byte "), "{message}");
    }
    let message = error_of(&good[..good.len() - 1]);
    assert!(message.contains("truncated"), "{message}");
}

#[test]
fn loops_in_the_table_are_named() {
    let data = stream(2, &[(0xff, 0xff, b'a')], b"\xff", b"aa");
    let message = error_of(&data);
    assert!(
        message.contains("referring to itself in a loop: 0xff -> 0xff"),
        "{message}"
    );
    let data = stream(4, &[(0xff, 0xfe, b'a'), (0xfe, b'b', 0xff)], b"\x01", b"x");
    let message = error_of(&data);
    assert!(
        message.contains("0xfe -> 0xff -> 0xfe") || message.contains("0xff -> 0xfe -> 0xff"),
        "{message}"
    );
    assert!(
        message.starts_with("compressed data, byte 12:"),
        "{message}"
    );
}

#[test]
fn wrong_lengths_and_trailing_bytes_are_named() {
    // Expands to 2 bytes where the header promises 3.
    let message = error_of(&stream(3, &[(0xff, b'a', b'a')], b"\xff", b"aaa"));
    assert!(
        message.contains("expands to 2 bytes, expected 3"),
        "{message}"
    );
    let mut data = stream(2, &[], b"ab", b"ab");
    data.push(0);
    assert!(error_of(&data).contains("1 unexpected bytes after the last block"));
    let message = error_of(&stream(2, &[(1, 2, 2), (1, 3, 3)], b"\x01", b"ab"));
    assert!(message.contains("defines symbol 0x01 twice"), "{message}");
}

#[test]
fn checksum_catches_a_changed_plain_byte() {
    let mut data = compress(b"a plain text, a plain text", DEFAULT_BLOCK_SIZE).unwrap();
    // Symbols come from 0xff down, so a plain 't' turned into 'z' is still a plain byte.
    let last_t = data.iter().rposition(|&b| b == b't').unwrap();
    data[last_t] = b'z';
    let message = error_of(&data);
    assert!(message.contains("checksum mismatch"), "{message}");
}

#[test]
fn exponential_tables_are_refused_without_expanding() {
    // Each symbol is twice the one before: symbol 0xff expands to 2^200 bytes.
    let table: Vec<(u8, u8, u8)> = (0..200u8)
        .map(|i| {
            let below = if i == 0 { 1 } else { 0x37 + i - 1 };
            (0x37 + i, below, below)
        })
        .collect();
    let message = error_of(&stream(10, &table, &[0x37 + 199], b""));
    assert!(
        message.contains("expands to more than 2^63 bytes"),
        "{message}"
    );
}

#[test]
fn header_fields_out_of_range() {
    let mut data = MAGIC.to_vec();
    data.extend_from_slice(&[VERSION, 0, 0]);
    assert!(error_of(&data).contains("byte 5: block size 0 is out of range"));
    let mut data = MAGIC.to_vec();
    data.push(VERSION);
    data.extend_from_slice(&[0xff; 11]);
    assert!(error_of(&data).contains("byte 5: the block size does not fit in 64 bits"));
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(99);
    for _ in 0..20_000 {
        let n = rng.below(64);
        let mut data = rng.bytes(n, 256);
        if rng.below(2) == 0 && data.len() >= 5 {
            data[..4].copy_from_slice(&MAGIC);
            data[4] = VERSION;
        }
        let _ = decompress(&data);
    }
}

#[test]
fn mutated_streams_never_panic() {
    let mut rng = Rng(1234);
    let text = include_str!("algorithm.rs").as_bytes();
    let good = compress(&text[..5000], 700).unwrap();
    for _ in 0..3_000 {
        let mut data = good.clone();
        for _ in 0..=rng.below(3) {
            match rng.below(3) {
                0 => {
                    let i = rng.below(data.len());
                    data[i] = rng.next() as u8;
                }
                1 => {
                    let i = rng.below(data.len());
                    data.remove(i);
                }
                _ => {
                    let i = rng.below(data.len() + 1);
                    data.insert(i, rng.next() as u8);
                }
            }
        }
        if let Ok(restored) = decompress(&data) {
            // Only a change the checksum cannot see survives; it must be harmless.
            assert_eq!(crc32(&restored), crc32(&text[..5000]));
        }
    }
}
