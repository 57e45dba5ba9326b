//! Tests of the piece cache (`cache.rs`).

use super::*;

#[test]
fn short_keys_are_distinct_and_match_a_plain_packing() {
    let samples: [&[u8]; 10] = [
        b"a", b"ab", b"abc", b"abcd", b" the", b"abcde", b"abcdef", b"abcdefg", b"\0", b"\0\0",
    ];
    let mut seen = std::collections::HashSet::new();
    for s in samples {
        let mut plain = [0u8; 8];
        plain[..s.len()].copy_from_slice(s);
        plain[7] = s.len() as u8;
        assert_eq!(short_key(s), Some(u64::from_le_bytes(plain)));
        assert!(seen.insert(short_key(s)));
    }
    assert_eq!(short_key(b"abcdefgh"), None);
}

#[test]
fn same_bytes_is_equality() {
    let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
    for len in 0..20 {
        for shift in 0..8 {
            let a = &text[..len];
            let b = &text[shift..shift + len];
            assert_eq!(same_bytes(a, b), a == b, "{len} {shift}");
        }
    }
}

#[test]
fn keys_in_a_text_are_the_pieces_own() {
    let text = "hello, wörld! a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh".as_bytes();
    for start in 0..text.len() {
        for len in 1..=(text.len() - start).min(12) {
            let piece = &text[start..start + len];
            assert_eq!(key_in(text, start, len), key_of(piece), "{start} {len}");
            if let Some(key) = short_key_in(text, start, len) {
                assert_eq!(key, key_of(piece), "{start} {len}");
                assert!(len <= 7 && start + 8 <= text.len());
            } else {
                assert!(len > 7 || start + 8 > text.len());
            }
        }
    }
}

#[test]
fn finds_what_was_inserted_through_growth() {
    PieceCache::with(new_owner(), |cache| {
        let pieces: Vec<String> = (0..20_000)
            .map(|i| format!("p{i}{}", "x".repeat(i % 13)))
            .collect();
        for (i, p) in pieces.iter().enumerate() {
            let ids: Vec<u32> = (0..(i % 4) as u32 + 1).map(|k| i as u32 + k).collect();
            let mut out = Vec::new();
            assert!(!cache.extend_with(p.as_bytes(), &mut out));
            cache.insert(p.as_bytes(), &ids);
        }
        for (i, p) in pieces.iter().enumerate() {
            let ids: Vec<u32> = (0..(i % 4) as u32 + 1).map(|k| i as u32 + k).collect();
            let mut out = vec![7];
            assert!(cache.extend_with(p.as_bytes(), &mut out), "{p}");
            assert_eq!(out[1..], ids[..], "{p}");
        }
        let mut out = Vec::new();
        let long = vec![b'y'; MAX_PIECE_BYTES + 1];
        cache.insert(&long, &[1]);
        cache.insert(&long, &[1]);
        assert!(!cache.extend_with(&long, &mut out));
        assert!(!cache.extend_with(b"absent piece", &mut out));
        assert!(!cache.extend_with(b"q", &mut out));
    });
}

#[test]
fn long_pieces_are_kept_from_their_second_sighting() {
    PieceCache::with(new_owner(), |cache| {
        let piece = |c: u8, n: usize| vec![c; n];
        let mut out = Vec::new();
        // Up to `KEPT_AT_ONCE_BYTES`: at once.
        cache.insert(&piece(b'a', KEPT_AT_ONCE_BYTES), &[1, 2]);
        assert!(cache.extend_with(&piece(b'a', KEPT_AT_ONCE_BYTES), &mut out));
        for n in [KEPT_AT_ONCE_BYTES + 1, 300, MAX_PIECE_BYTES] {
            let long = piece(b'b', n);
            cache.insert(&long, &[n as u32, 9]);
            assert!(!cache.extend_with(&long, &mut out), "{n}: kept at once");
            // Another long piece met in between does not make this one forgotten
            // (unless their keys share a place, which these do not).
            cache.insert(&piece(b'c', n), &[5]);
            cache.insert(&long, &[n as u32, 9]);
            assert!(
                cache.extend_with(&long, &mut out),
                "{n}: not kept when met again"
            );
            assert!(!cache.extend_with(&piece(b'c', n), &mut out), "{n}");
        }
        assert_eq!(out, [1, 2, 129, 9, 300, 9, 1024, 9]);
        // Starting over forgets what was met once.
        let once = piece(b'd', 200);
        cache.insert(&once, &[4]);
        cache.clear();
        cache.insert(&once, &[4]);
        assert!(!cache.extend_with(&once, &mut out));
    });
}

#[test]
fn medium_pieces_differing_in_any_one_byte_are_apart() {
    // 8 to 16 bytes: the slot's two words cover every byte, so no byte is unchecked.
    PieceCache::with(new_owner(), |cache| {
        for len in 8..=16usize {
            let base: Vec<u8> = (0..len as u8).map(|i| b'a' + i).collect();
            cache.insert(&base, &[len as u32]);
            for at in 0..len {
                let mut other = base.clone();
                other[at] = b'Z';
                assert!(!cache.extend_with(&other, &mut Vec::new()), "{len} {at}");
            }
            let mut out = Vec::new();
            assert!(cache.extend_with(&base, &mut out));
            assert_eq!(out, [len as u32]);
            // A longer piece with the same first and last 8 bytes is another piece.
            let mut longer = base[..8].to_vec();
            longer.extend_from_slice(&base[len - 8..]);
            if longer.len() > len {
                assert!(!cache.extend_with(&longer, &mut Vec::new()), "{len}");
            }
        }
    });
}

#[test]
fn starts_over_when_full() {
    PieceCache::with(new_owner(), |cache| {
        let piece = |i: usize| format!("piece number {i}");
        for i in 0..MAX_PIECES {
            cache.insert(piece(i).as_bytes(), &[i as u32]);
        }
        assert_eq!(cache.len, MAX_PIECES);
        let mut out = Vec::new();
        assert!(cache.extend_with(piece(0).as_bytes(), &mut out));
        cache.insert(b"one more", &[7, 8, 9]);
        assert_eq!(cache.len, 1);
        assert!(!cache.extend_with(piece(0).as_bytes(), &mut out));
        assert!(cache.extend_with(b"one more", &mut out));
        assert_eq!(out, [0, 7, 8, 9]);
    });
}

#[test]
fn another_owner_starts_empty() {
    let owner = new_owner();
    PieceCache::with(owner, |cache| cache.insert(b"hello", &[1, 2]));
    PieceCache::with(owner, |cache| {
        assert!(cache.extend_with(b"hello", &mut Vec::new()));
        // A nested call gets an empty cache of its own.
        PieceCache::with(owner, |inner| {
            assert!(!inner.extend_with(b"hello", &mut Vec::new()));
        });
    });
    PieceCache::with(new_owner(), |cache| {
        assert!(!cache.extend_with(b"hello", &mut Vec::new()));
    });
}

#[test]
fn runs_in_the_arena_can_be_copied_as_a_block() {
    PieceCache::with(new_owner(), |cache| {
        // Short and medium (arena only past `INLINE_IDS` ids) and long pieces, each found
        // while its run is the arena's last and again after others followed it.
        let mut kept = Vec::new();
        for n in 1..=20u32 {
            for len in [5, 12, 40] {
                let piece = format!("{n:02}{}", "z".repeat(len - 2));
                let ids: Vec<u32> = (0..n).map(|k| 1000 * n + k).collect();
                cache.insert(piece.as_bytes(), &ids);
                kept.push((piece, ids));
                for (piece, ids) in kept.iter().rev().take(2) {
                    let key = key_of(piece.as_bytes());
                    let found = if is_short_key(key) {
                        cache.find_short(key)
                    } else if is_medium_key(key) {
                        cache.find_medium(key, piece.as_bytes())
                    } else {
                        None
                    };
                    let run = match found.map(|f| (f, f.inline())) {
                        Some((_, (inline, n @ 1..=INLINE_IDS))) => {
                            assert_eq!(&inline[..n], &ids[..], "{piece}");
                            continue;
                        }
                        Some((found, _)) => found.arena(cache),
                        None => cache.find_run(key, piece.as_bytes()).expect("kept"),
                    };
                    assert_eq!(run.ids(), &ids[..], "{piece}");
                    assert!(run.window.len() >= RUN_BLOCK.max(ids.len()), "{piece}");
                    assert!(piece.len() > 16 || ids.len() > INLINE_IDS, "{piece}");
                }
            }
        }
    });
}

#[test]
fn short_and_medium_pieces_keep_up_to_three_ids_of_20_bits_in_their_slot() {
    PieceCache::with(new_owner(), |cache| {
        let largest = (1u32 << PACKED_ID_BITS) - 1;
        let cases: [&[u32]; 7] = [
            &[largest],
            &[0, largest, 1],
            &[largest + 1],
            &[5, largest + 1],
            &[1, 2, 3, 4],
            &[0],
            &[u32::MAX >> 1, 7],
        ];
        for (i, ids) in cases.iter().enumerate() {
            for piece in [format!("p{i}"), format!("medium piece {i}")] {
                let bytes = piece.as_bytes();
                cache.insert(bytes, ids);
                let key = key_of(bytes);
                let found = match short_key(bytes) {
                    Some(key) => cache.find_short(key),
                    None => cache.find_medium(key, bytes),
                }
                .expect("kept");
                let (inline, n) = found.inline();
                let packs = ids.len() <= INLINE_IDS && ids.iter().all(|&id| id <= largest);
                if packs {
                    assert_eq!((&inline[..n], n), (&ids[..], ids.len()), "{ids:?}");
                } else {
                    assert_eq!(n, 0, "{ids:?} should be in the arena");
                    assert_eq!(found.arena(cache).ids(), &ids[..]);
                }
                let mut out = vec![9];
                assert!(cache.extend_with(bytes, &mut out));
                assert_eq!(out[1..], ids[..]);
            }
        }
    });
}

#[test]
fn medium_pieces_that_share_their_first_and_last_bytes_are_told_apart() {
    // A run of one letter: every length from 8 to 16 has the same first and last 8 bytes,
    // so only the length (in the key) tells them apart.
    PieceCache::with(new_owner(), |cache| {
        for len in 8..=16u32 {
            cache.insert("a".repeat(len as usize).as_bytes(), &[len]);
        }
        for len in 8..=16u32 {
            let mut out = Vec::new();
            assert!(cache.extend_with("a".repeat(len as usize).as_bytes(), &mut out));
            assert_eq!(out, [len]);
        }
        assert!(!cache.extend_with(&[b'a'; 17], &mut Vec::new()));
        assert!(!cache.extend_with(b"aaaaaaabaaaaaaaa", &mut Vec::new()));
    });
}
