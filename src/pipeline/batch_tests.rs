//! Batches: runs of texts, one encoder a run (its texts sharing the prefetch queue),
//! several threads, errors naming the earliest failing text.

use super::tests::{
    bpe, byte_vocab, classic, config, distinct_word, gpt2_ranked, merges, take_the_queue,
    uncached_ids, LARGE_TABLE_WORDS,
};
use super::*;
use crate::algorithms::bpe::MergeRule;

/// The helpers of a team of `threads` threads (`crate::threads::team`): a pool of one
/// thread fewer, none for one thread.
fn helpers(threads: usize) -> Option<crate::threads::Helpers> {
    (threads > 1).then(|| crate::threads::Helpers::new(threads - 1).unwrap())
}

/// `texts` as one batch on this thread (one run), each text's ids checked against its own
/// uncached encoding.
fn check_one_run(t: &Tokenizer, texts: &[&str]) {
    let (flat, offsets) = t.encode_batch_flat(texts, None, None, None).unwrap();
    assert_eq!(offsets.len(), texts.len() + 1);
    assert_eq!(offsets[texts.len()] as usize, flat.len());
    for (i, text) in texts.iter().enumerate() {
        let ids = &flat[offsets[i] as usize..offsets[i + 1] as usize];
        assert_eq!(ids, uncached_ids(t, text, Vec::new()), "text {i}: {text:?}");
    }
}

#[test]
fn a_run_keeps_one_queue_across_its_texts() {
    // A run's texts share the prefetch queue, so a text's last pieces are looked up while
    // the next text is split: each text must still get exactly its own ids, whether it is
    // empty, shorter than the queue, or longer, in both lookup modes.
    let t = gpt2_ranked();
    let words = [
        " ab",
        "ab",
        " abab",
        " xyz",
        " abcdefgh",
        " thequickbrownfox",
        "!?",
        "  ",
        "\n",
    ];
    let mut rng = crate::rng::SplitMix64::new(11);
    let texts: Vec<String> = (0..400)
        .map(|i| {
            let n = [0, 1, 2, 7, 8, 9, 30][i % 7];
            (0..n)
                .map(|_| words[rng.below(0, words.len() as u32) as usize])
                .collect()
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    check_one_run(&t, &refs); // direct lookups (a small table)
    let filler: String = (0..LARGE_TABLE_WORDS).map(distinct_word).collect();
    t.encode(&filler, None).unwrap();
    take_the_queue(&t);
    check_one_run(&t, &refs); // the queue
                              // Texts with new pieces among cached ones, and a run of empty texts only.
    let fresh: Vec<String> = (0..300)
        .map(|i| {
            format!(
                "{} ab{}",
                distinct_word(LARGE_TABLE_WORDS + i),
                distinct_word(i)
            )
        })
        .collect();
    let refs: Vec<&str> = fresh.iter().map(String::as_str).collect();
    check_one_run(&t, &refs);
    check_one_run(&t, &["", "", ""]);
}

/// Encodes 80,000 distinct words of the classic model's letters, so that this thread's
/// cache for `t` is past direct lookups (pieces then go through the prefetch queue).
fn grow_past_direct_lookups(t: &Tokenizer) {
    let letters = ['l', 'o', 'w', 'e', 'r', 'n', 's', 't', 'i', 'd'];
    let filler: String = (0..LARGE_TABLE_WORDS)
        .map(|mut i| {
            let mut w = String::from(" ");
            for _ in 0..6 {
                w.push(letters[i % 10]);
                i /= 10;
            }
            w
        })
        .collect();
    t.encode(&filler, None).unwrap();
    take_the_queue(t);
}

#[test]
fn a_run_that_fails_names_its_earliest_failing_text() {
    // An unknown character in a piece still queued when the next text (itself failing)
    // is split: the error is the earlier text's, as when texts are encoded one by one.
    let t = classic(Unknown::Error);
    grow_past_direct_lookups(&t);
    let mut texts = vec!["low lower newest widest"; 50];
    texts[20] = "low lowx";
    texts[21] = "x";
    let err = t.encode_batch_flat(&texts, None, None, None).unwrap_err();
    let alone = t.encode(texts[20], None).unwrap_err();
    assert_eq!(
        err.message,
        format!("text 20 of the batch: {}", alone.message)
    );
    assert!(
        alone.message.contains("at character 7"),
        "{}",
        alone.message
    );
}

/// The texts of each run, as (first index, texts), in order.
fn run_texts<'t>(runs: &Runs<'_, 't>) -> Vec<(usize, Vec<&'t str>)> {
    (0..runs.count())
        .map(|part| (runs.first(part), runs.texts(part).to_vec()))
        .collect()
}

#[test]
fn runs_cover_every_text_once_in_order_and_split_by_bytes() {
    let long = "x".repeat(100_000);
    let mut texts: Vec<&str> = vec!["ab"; 1000];
    texts[500] = &long;
    let runs = Runs::new(&texts, 8);
    let parts = run_texts(&runs);
    // Every text once, in order, each run starting where the last ended.
    let mut next = 0;
    for (first, run) in &parts {
        assert_eq!(*first, next);
        assert!(!run.is_empty());
        next += run.len();
    }
    assert_eq!(next, texts.len());
    // The long text makes a run of its own; the short texts are not all in one run.
    let with_long = parts.iter().find(|(_, run)| run.contains(&long.as_str()));
    assert_eq!(with_long.map(|(_, run)| run.len()), Some(1));
    assert!(parts.len() >= 3, "{} runs", parts.len());
    // Empty texts are shared out by count.
    let empty = vec![""; 1000];
    let runs = Runs::new(&empty, 10);
    let sizes: Vec<usize> = run_texts(&runs).iter().map(|(_, r)| r.len()).collect();
    assert_eq!(sizes, vec![100; 10]);
    // Runs are claimed once each, then none is left.
    let claimed: Vec<usize> = std::iter::from_fn(|| runs.claim()).collect();
    assert_eq!(claimed, (0..10).collect::<Vec<_>>());
    assert_eq!(runs.claim(), None);
    // No texts: one empty run; more runs asked than texts: one text a run.
    assert_eq!(run_texts(&Runs::new(&[], 4)), vec![(0, vec![])]);
    assert_eq!(Runs::new(&["a", "b", "c"], 16).count(), 3);
    // For a team: one run when small or on one thread, several a thread otherwise.
    let two = helpers(2);
    let big = vec![long.as_str(); 2 * PARALLEL_MIN_BYTES / long.len() + 1];
    assert_eq!(Runs::for_team(&["ab"; 100], two.as_ref()).count(), 1);
    assert_eq!(Runs::for_team(&big, None).count(), 1);
    assert!(Runs::for_team(&big, two.as_ref()).count() > 2);
    // Runs of at least MIN_RUN_BYTES where the batch has the bytes; one a thread at least.
    let word = "abcdefgh".repeat(128);
    let five = vec![word.as_str(); 5 * batch::MIN_RUN_BYTES / word.len()];
    assert_eq!(Runs::for_threads(&five, 2, 8).count(), 5);
    assert_eq!(Runs::for_threads(&five, 2, 2).count(), 4);
    assert_eq!(Runs::for_threads(&five[..2], 2, 8).count(), 2);
}

#[test]
fn a_small_batch_is_shared_when_this_threads_pace_says_it_takes_long() {
    use batch::{pace, SHARED_FROM_BYTES, SHARED_FROM_NANOS};
    use std::time::Duration;
    // A thread of its own, so that no other test's runs have set its pace.
    std::thread::spawn(|| {
        let two = helpers(2);
        let text = "x".repeat(SHARED_FROM_BYTES);
        let small = [text.as_str(), "y"];
        // No pace yet: a batch under PARALLEL_MIN_BYTES stays on the calling thread.
        assert_eq!(pace::nanos_for(small.len()), 0);
        assert!(!Runs::worth_sharing(&small, two.as_ref()));
        // A pace at which it takes twice the threshold: shared, on a team only.
        let slow = Duration::from_nanos(2 * SHARED_FROM_NANOS);
        pace::note(SHARED_FROM_BYTES, slow);
        assert!(Runs::worth_sharing(&small, two.as_ref()));
        assert!(Runs::for_team(&small, two.as_ref()).count() == 2);
        assert!(!Runs::worth_sharing(&small, None));
        // Smaller than SHARED_FROM_BYTES: never, whatever the pace.
        assert!(!Runs::worth_sharing(&[&text[1..]], two.as_ref()));
        // A fast pace (half the threshold): back on the calling thread.
        pace::note(SHARED_FROM_BYTES, slow / 4);
        assert!(!Runs::worth_sharing(&small, two.as_ref()));
        // Runs under TIMED_FROM_BYTES are not noted.
        pace::note(pace::TIMED_FROM_BYTES - 1, slow * 1000);
        assert!(!Runs::worth_sharing(&small, two.as_ref()));
    })
    .join()
    .unwrap();
}

#[test]
fn a_batch_run_notes_this_threads_pace() {
    let t = gpt2_ranked();
    std::thread::spawn(move || {
        let words: Vec<String> = (0..4000).map(distinct_word).collect();
        let texts: Vec<&str> = words.iter().map(String::as_str).collect();
        assert!(texts.iter().map(|w| w.len()).sum::<usize>() >= batch::pace::TIMED_FROM_BYTES);
        assert_eq!(batch::pace::nanos_for(1000), 0);
        check_one_run(&t, &texts);
        assert!(batch::pace::nanos_for(1000) > 0, "the run was timed");
    })
    .join()
    .unwrap();
}

/// A byte-level model of "ab" and "abab", with `<s>` as a special token (also returned).
fn ab_model() -> (Tokenizer, Vec<(String, u32)>) {
    let c = config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Merges));
    let specials = vec![("<s>".to_string(), 300)];
    let t = Tokenizer::new(
        c,
        byte_vocab(&["ab", "abab"]),
        &merges(&[("a", "b"), ("ab", "ab")]),
        specials.clone(),
    )
    .unwrap();
    (t, specials)
}

/// `n` texts of the `ab_model`'s tokens and others, of varied lengths.
fn ab_texts(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("ab {i} abab{}", " ba".repeat(i % 7)))
        .collect()
}

/// `texts` as one batch on `pool`, each text's ids checked against its own encoding.
fn check_batch(t: &Tokenizer, texts: &[&str], pool: Option<&crate::threads::Helpers>, what: &str) {
    let (flat, offsets) = t.encode_batch_flat(texts, None, None, pool).unwrap();
    assert_eq!(offsets.len(), texts.len() + 1);
    for (i, text) in texts.iter().enumerate() {
        let ids = &flat[offsets[i] as usize..offsets[i + 1] as usize];
        assert_eq!(ids, t.encode(text, None).unwrap(), "{what}, text {i}");
    }
}

#[test]
fn a_batch_on_several_threads_gives_each_text_its_ids_in_order() {
    let (t, specials) = ab_model();
    let mut texts = ab_texts(3000);
    texts[10] = "ab ".repeat(100_000); // longer than a run's share
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let bytes: usize = refs.iter().map(|t| t.len()).sum();
    assert!(bytes >= batch::PARALLEL_MIN_BYTES);
    for threads in [1, 2, 3] {
        let pool = helpers(threads);
        check_batch(&t, &refs, pool.as_ref(), &format!("{threads} threads"));
        // A forbidden special token in two texts: the error names the first.
        let matcher = SpecialMatcher::new(&specials).unwrap().unwrap();
        let mut bad = refs.clone();
        bad[2990] = "<s>";
        bad[1500] = "x <s>";
        let err = t
            .encode_batch_flat(&bad, None, Some(&matcher), pool.as_ref())
            .unwrap_err();
        assert!(
            err.message.starts_with("text 1500 of the batch"),
            "{}",
            err.message
        );
    }
}

/// A run of a batch encodes its texts into one buffer: huge pages are asked for when that
/// buffer is allocated or grows, not once per text (a system call each: 110,418 of them for
/// en-large's lines before this was fixed).
#[cfg(target_os = "linux")]
#[test]
fn a_large_batch_asks_for_huge_pages_per_allocation_not_per_text() {
    let c = config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Merges));
    let t = Tokenizer::new(c, byte_vocab(&["ab"]), &merges(&[("a", "b")]), vec![]).unwrap();
    // 600,000 texts of 3 ids each ("ab", "c", "d"): 7.2 MB of ids in the run's buffer,
    // past the 4 MiB line.
    let texts = vec!["ab cd"; 600_000];
    // No helpers: one run, encoded on this thread, whose count is read.
    let before = crate::pages::ADVICE.with(|n| n.get());
    let (flat, _) = t.encode_batch_flat(&texts, None, None, None).unwrap();
    let asked = crate::pages::ADVICE.with(|n| n.get()) - before;
    assert_eq!(flat.len(), 3 * texts.len());
    assert!((1..=4).contains(&asked), "asked {asked} times");
}

#[test]
fn count_batch_counts_each_texts_ids_across_slices_and_names_a_failing_text() {
    // More texts than one slice of `count_batch`, with the cache small and past direct
    // lookups, on one thread and two; a failing text past the first slice is named.
    let t = classic(Unknown::Error);
    let words = ["low", "lower", "newest", "widest", "lowest", "l", ""];
    let texts: Vec<String> = (0..8000)
        .map(|i| {
            (0..i % 9)
                .map(|k| words[(i + k) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    assert!(refs.iter().map(|t_| t_.len()).sum::<usize>() >= PARALLEL_MIN_BYTES);
    let want: Vec<usize> = refs
        .iter()
        .map(|t_| t.encode(t_, None).unwrap().len())
        .collect();
    // One thread, small cache; then the cache large (this thread's, on which a team of one
    // runs); then two threads (the batch is large enough to share).
    for (threads, grow) in [(1, false), (1, true), (2, false)] {
        if grow {
            grow_past_direct_lookups(&t);
        }
        let pool = helpers(threads);
        assert_eq!(
            t.count_batch(&refs, None, None, pool.as_ref()).unwrap(),
            want
        );
        let mut bad = refs.clone();
        bad[2500] = "low x";
        bad[1500] = "lowx";
        let err = t.count_batch(&bad, None, None, pool.as_ref()).unwrap_err();
        assert!(
            err.message
                .starts_with("text 1500 of the batch: unknown character 'x'"),
            "{}",
            err.message
        );
    }
}

/// `texts` as an arriving batch on a team of `threads`: the helpers start first and
/// encode runs while this thread feeds the texts in, as the Python binding does.
fn arriving_batch(
    t: &Tokenizer,
    texts: &[&str],
    forbidden: Option<&SpecialMatcher>,
    threads: usize,
) -> Result<(Vec<u32>, Vec<u64>)> {
    let pool = helpers(threads);
    let arriving = Arriving::new(texts.len(), threads);
    match pool.as_ref() {
        Some(pool) => pool.scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| t.encode_arrived(&arriving, None, forbidden));
            }
            let mut feeder = arriving.feeder().unwrap();
            assert!(arriving.feeder().is_none(), "one feeder only");
            for text in texts {
                assert!(feeder.push(text));
            }
            assert!(!feeder.push("past the capacity"));
            drop(feeder);
            t.encode_arrived(&arriving, None, forbidden);
            arriving.wait_for_team();
        }),
        None => {
            let mut feeder = arriving.feeder().unwrap();
            texts.iter().for_each(|text| assert!(feeder.push(text)));
            drop(feeder);
            t.encode_arrived(&arriving, None, forbidden);
        }
    }
    arriving.finish(pool.as_ref())
}

#[test]
fn an_arriving_batch_gives_what_the_batch_gives_whatever_the_team() {
    let (t, specials) = ab_model();
    // Enough bytes for many runs, a text longer than any run, empty texts.
    let mut texts = ab_texts(20_000);
    texts[10] = "ab ".repeat(3_000_000);
    texts[11] = String::new();
    texts[19_999] = String::new();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let expected = t.encode_batch_flat(&refs, None, None, None).unwrap();
    let matcher = SpecialMatcher::new(&specials).unwrap().unwrap();
    for threads in [1, 2, 3] {
        assert_eq!(
            arriving_batch(&t, &refs, None, threads).unwrap(),
            expected,
            "{threads} threads"
        );
        // A forbidden special token in two texts: the error names the first.
        let mut bad = refs.clone();
        bad[19_000] = "<s>";
        bad[15_000] = "x <s>";
        let err = arriving_batch(&t, &bad, Some(&matcher), threads).unwrap_err();
        assert!(
            err.message.starts_with("text 15000 of the batch"),
            "{}",
            err.message
        );
        // No texts: no ids, one offset.
        assert_eq!(
            arriving_batch(&t, &[], None, threads).unwrap(),
            (vec![], vec![0])
        );
    }
}

#[test]
fn a_closed_batch_lets_every_thread_go_with_the_runs_it_has() {
    // The feeder dropped part way (the binding's reading of a text failed): the team still
    // finishes, with the texts handed over, and nobody waits for the rest.
    let t = gpt2_ranked();
    let arriving = Arriving::new(1000, 2);
    let pool = helpers(2).unwrap();
    pool.scope(|scope| {
        scope.spawn(|_| t.encode_arrived(&arriving, None, None));
        let mut feeder = arriving.feeder().unwrap();
        for _ in 0..10 {
            assert!(feeder.push(" ab"));
        }
        drop(feeder);
        t.encode_arrived(&arriving, None, None);
        arriving.wait_for_team();
    });
    let (flat, offsets) = arriving.finish(Some(&pool)).unwrap();
    assert_eq!(offsets.len(), 11);
    assert_eq!(flat, t.encode(&" ab".repeat(10), None).unwrap());
}

#[test]
fn a_text_that_fails_names_its_first_failure_in_both_lookup_modes() {
    // After an error the encoder skips the pieces left (the direct path is then never
    // taken); the error is the first one's, and the next call encodes normally.
    let t = classic(Unknown::Error);
    let text = "low x lower newest y widest";
    let fine = "low lower newest widest";
    let want = classic(Unknown::Error).encode(fine, None).unwrap();
    let small = t.encode(text, None).unwrap_err();
    assert!(small.message.contains("'x'"), "{}", small.message);
    assert_eq!(t.encode(fine, None).unwrap(), want);
    grow_past_direct_lookups(&t);
    let large = t.encode(text, None).unwrap_err();
    assert_eq!(large.message, small.message);
    assert_eq!(t.encode(fine, None).unwrap(), want);
}

/// Batches one after another reuse their runs' buffers, whose old ids must not show
/// through: texts of different lengths each time, on two threads, ids checked.
#[test]
fn batches_after_batches_give_their_own_ids() {
    let (t, _) = ab_model();
    let pool = helpers(2);
    for round in 0..3 {
        let texts: Vec<String> = (0..4000)
            .map(|i| format!("{}{round} ba", "ab ".repeat(20 + (i + round) % 11)))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert!(refs.iter().map(|t| t.len()).sum::<usize>() >= batch::PARALLEL_MIN_BYTES);
        check_batch(&t, &refs, pool.as_ref(), &format!("round {round}"));
    }
}
