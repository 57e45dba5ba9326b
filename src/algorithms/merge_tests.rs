//! The merge loops against each other: the linear scan, the scan of packed keys, the binary
//! heap over 16-bit links, the reference heap and the rank buckets, on hand-made and random
//! tables.

use super::*;

fn table(entries: &[(Pair, (u32, u32))]) -> MergeTable {
    entries.iter().copied().collect()
}

#[test]
fn linear_and_heap_agree_on_runs() {
    // a=0; (a,a)→1 rank 0; (1,1)→2 rank 1; (1,0)→3 rank 2
    let t = table(&[((0, 0), (0, 1)), ((1, 1), (1, 2)), ((1, 0), (2, 3))]);
    for n in 1..=LINEAR_MAX {
        let mut a = vec![0u32; n];
        let mut b = a.clone();
        merge_linear_from(&t, &mut a, 0);
        merge_heap(&t, &mut b);
        assert_eq!(a, b, "n = {n}");
    }
    // Mixed symbols, with a prefix that must stay untouched.
    let mixed = table(&[
        ((0, 1), (0, 5)),
        ((5, 1), (1, 6)),
        ((1, 0), (2, 7)),
        ((6, 7), (3, 8)),
    ]);
    for n in 2..=LINEAR_MAX {
        let word: Vec<u32> = (0..n as u32).map(|i| (i * 7 + i / 3) % 2).collect();
        let mut a = [vec![9, 9], word.clone()].concat();
        let mut b = word;
        merge_linear_from(&mixed, &mut a, 2);
        merge_heap(&mixed, &mut b);
        assert_eq!(a[2..], b[..], "n = {n}");
        assert_eq!(a[..2], [9, 9]);
    }
    let mut three = vec![0, 0, 0];
    merge_heap(&t, &mut three);
    assert_eq!(three, [3]);
}

#[test]
fn rank_buckets_and_heap_agree() {
    let mut rng = SplitMix64::new(11);
    for round in 0..300 {
        // A random vocabulary over a few symbols: merges of random pairs into new ids,
        // ranks shuffled so that equal and out-of-order ranks happen.
        let symbols = rng.below(1, 5);
        let mut table = MergeTable::default();
        let merges = rng.below(1, 30);
        for merged in symbols..symbols + merges {
            let a = rng.below(0, merged);
            let b = rng.below(0, merged);
            let rank = rng.below(0, 20);
            table.entry((a, b)).or_insert((rank, merged));
        }
        let n = rng.below(2, 400);
        let word: Vec<u32> = (0..n).map(|_| rng.below(0, symbols)).collect();
        let mut by_heap = word.clone();
        let mut by_rank = word.clone();
        merge_heap(&table, &mut by_heap);
        merge_by_rank(&table, &mut by_rank);
        assert_eq!(by_heap, by_rank, "round {round}");
        // The 16-bit heap, behind a prefix that must stay untouched.
        let mut linked = [vec![9, 9], word].concat();
        let pair = |a, b| lookup(&table, a, b);
        merge_heap_with(pair, &mut linked, 2, |i, w| pair(w[i], w[i + 1]));
        assert_eq!(linked[..2], [9, 9]);
        assert_eq!(linked[2..], by_heap[..], "round {round}");
    }
    let t = table(&[((0, 0), (0, 1)), ((1, 1), (1, 2)), ((1, 0), (2, 3))]);
    for n in [49, 50, 1000, 1001, HEAP_MAX - 1, HEAP_MAX, HEAP_MAX + 1] {
        let (mut a, mut b, mut c) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
        merge_heap(&t, &mut a);
        merge_by_rank(&t, &mut b);
        apply_merges(&t, &mut c);
        assert_eq!(a, b, "n = {n}");
        assert_eq!(a, c, "n = {n}");
    }
}

#[test]
fn the_scan_of_packed_keys_and_the_heap_agree() {
    let mut rng = SplitMix64::new(14);
    let mut told = 0;
    for round in 0..400 {
        // As in `rank_buckets_and_heap_agree`: equal and out-of-order ranks happen.
        let symbols = rng.below(1, 5);
        let mut table = MergeTable::default();
        for merged in symbols..symbols + rng.below(1, 30) {
            let (a, b) = (rng.below(0, merged), rng.below(0, merged));
            table.entry((a, b)).or_insert((rng.below(0, 20), merged));
        }
        let n = match round % 4 {
            0 => SCAN_MAX as u32,
            _ => rng.below(0, SCAN_MAX as u32 + 1),
        };
        let word: Vec<u32> = (0..n).map(|_| rng.below(0, symbols)).collect();
        let mut want = word.clone();
        merge_heap(&table, &mut want);
        // Behind a prefix that must stay untouched.
        let mut got = [vec![9, 9], word].concat();
        let first = got.clone();
        let pair = |a, b| lookup(&table, a, b);
        let ahead = |a, b| {
            // Only pairs of symbols that can meet: ids the table knows.
            assert!(a < symbols + 30 && b < symbols + 30, "({a}, {b})");
        };
        merge_scan_with(
            pair,
            &mut got,
            2,
            |i| pair(first[2 + i], first[3 + i]),
            ahead,
        );
        assert_eq!(got[..2], [9, 9]);
        assert_eq!(got[2..], want[..], "round {round}");
        told += usize::from(want.len() < n as usize);
    }
    assert!(told > 100, "the words merged ({told} of 400)");
    // The highest rank a key holds, and a run of one symbol: every merge is a tie.
    let top = u32::MAX >> SCAN_POSITION_BITS;
    let t = table(&[((0, 0), (top - 1, 1)), ((1, 1), (top - 2, 2))]);
    for n in [2, 3, 49, 200, SCAN_MAX] {
        let mut want = vec![0u32; n];
        merge_heap(&t, &mut want);
        let mut got = vec![0u32; n];
        let pair = |a, b| lookup(&t, a, b);
        merge_scan_with(pair, &mut got, 0, |_| pair(0, 0), |_, _| {});
        assert_eq!(got, want, "n = {n}");
    }
}

#[test]
fn byte_pair_merges_take_the_heap_when_a_rank_does_not_fit_a_key() {
    // Ranks past what a scan key holds: parts the scan would take go to the heap, with
    // the same result.
    let byte_ids: [u32; 256] = std::array::from_fn(|b| b as u32);
    let big = u32::MAX >> SCAN_POSITION_BITS;
    for offset in [0, big] {
        let t = table(&[
            ((0, 0), (offset + 2, 256)),
            ((256, 256), (offset + 1, 257)),
            ((1, 0), (offset, 258)),
        ]);
        let byte_pairs = BytePairMerges::new(&t, &byte_ids);
        assert_eq!(byte_pairs.scan, offset == 0);
        for n in [49, 100, SCAN_MAX, SCAN_MAX + 1] {
            let bytes: Vec<u8> = (0..n).map(|i| u8::from(i % 5 == 0)).collect();
            let mut want: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
            merge_heap(&t, &mut want);
            let mut got = Vec::new();
            byte_pairs.merge_bytes(&t, &byte_ids, &bytes, &mut got);
            assert_eq!(got, want, "offset {offset}, n = {n}");
        }
    }
}

#[test]
fn byte_pair_merges_agree_with_the_linear_scan() {
    let mut rng = SplitMix64::new(12);
    // Byte b's initial symbol is id 255 - b: the table is read by bytes, not ids.
    let byte_ids: [u32; 256] = std::array::from_fn(|b| 255 - b as u32);
    for round in 0..200 {
        let mut table = MergeTable::default();
        for merged in 256..256 + rng.below(1, 30) {
            let a = rng.below(251, merged);
            let b = rng.below(251, merged);
            table.entry((a, b)).or_insert((rng.below(0, 20), merged));
        }
        let byte_pairs = BytePairMerges::new(&table, &byte_ids);
        for len in (0..=LINEAR_MAX).chain([49, 50, 200, SCAN_MAX, SCAN_MAX + 1, HEAP_MAX]) {
            let bytes: Vec<u8> = (0..len).map(|_| rng.below(0, 5) as u8).collect();
            let mut want: Vec<u32> = bytes.iter().map(|&b| byte_ids[b as usize]).collect();
            merge_heap(&table, &mut want);
            let mut got = vec![7];
            byte_pairs.merge_bytes(&table, &byte_ids, &bytes, &mut got);
            assert_eq!(got[1..], want[..], "round {round}, {bytes:?}");
        }
    }
}

#[test]
fn the_pair_filter_keeps_every_pair_and_refuses_most_others() {
    let mut rng = SplitMix64::new(5);
    let mut table = MergeTable::default();
    while table.len() < 50_000 {
        let (a, b) = (rng.below(0, 60_000), rng.below(0, 60_000));
        table.insert((a, b), (table.len() as u32, 60_000 + table.len() as u32));
    }
    let filter = PairFilter::new(&table);
    assert!(table.keys().all(|&(a, b)| filter.may_hold(a, b)));
    let (mut absent, mut passed) = (0, 0);
    for _ in 0..100_000 {
        let (a, b) = (rng.below(0, 60_000), rng.below(0, 60_000));
        if !table.contains_key(&(a, b)) {
            absent += 1;
            passed += usize::from(filter.may_hold(a, b));
        }
    }
    // 16 to 32 bits a pair, two of them set: a few percent pass.
    assert!(
        passed * 20 < absent,
        "{passed} of {absent} absent pairs passed"
    );
}

#[test]
fn byte_pair_merges_agree_with_the_linear_scan_on_a_filtered_table() {
    // Merges of tokens made from bytes 0 to 7, then enough others (ids from 100,000)
    // that the filter has many words and refuses pairs.
    let mut rng = SplitMix64::new(13);
    let byte_ids: [u32; 256] = std::array::from_fn(|b| b as u32);
    let mut table = MergeTable::default();
    let mut made: Vec<u32> = (0..8).collect();
    for merged in 256..556 {
        let a = made[rng.below(0, made.len() as u32) as usize];
        let b = made[rng.below(0, made.len() as u32) as usize];
        if let std::collections::hash_map::Entry::Vacant(slot) = table.entry((a, b)) {
            slot.insert((merged, merged));
            made.push(merged);
        }
    }
    while table.len() < 20_000 {
        let (a, b) = (rng.below(100_000, 200_000), rng.below(100_000, 200_000));
        let next = 200_000 + table.len() as u32;
        table.entry((a, b)).or_insert((next, next));
    }
    let byte_pairs = BytePairMerges::new(&table, &byte_ids);
    let mut merged = 0;
    for round in 0..2_000 {
        // One word in ten past LINEAR_MAX: the scan's and the heap's paths.
        let most = if round % 10 == 0 {
            HEAP_MAX
        } else {
            LINEAR_MAX
        };
        let len = rng.below(0, most as u32 + 1) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(0, 8) as u8).collect();
        let mut want: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
        merge_heap(&table, &mut want);
        let mut got = Vec::new();
        byte_pairs.merge_bytes(&table, &byte_ids, &bytes, &mut got);
        assert_eq!(got, want, "round {round}, {bytes:?}");
        merged += len - got.len();
    }
    assert!(merged > 3_000, "the words merged ({merged} merges)");
}
