//! §8 sequences.

use super::*;

// ---------------------------------------------------------------------------------------------
// §8 sequences
// ---------------------------------------------------------------------------------------------

fn decl(hand: &str, trump: Suit) -> Declaration {
    let h = cards(hand);
    let (r, n) = runs(h);
    let items = r[..n].iter().flatten().fold(0, |m, r| m | 1 << r.item());
    Declaration::of(h, items, trump)
}

fn compare(elder: &str, younger: &str, trump: Suit, elder_wins_ties: bool) -> Announcement {
    Announcement::complete(
        0,
        &decl(elder, trump),
        &decl(younger, trump),
        trump,
        elder_wins_ties,
    )
}

#[test]
fn e3_sequences_trump_breaks_equal_value_and_top_and_the_winner_scores_all() {
    let g = game(&[]);
    let elder = "9S 10S JS QS KS AD 8D AC JC";
    let dealer = "10H JH QH KH 7C 8C 9C 10D QD";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "7D",
        "AS",
        &["pass", "pass", "name hearts"],
    );
    assert_eq!(s.phase(), Phase::Announce);
    act(&mut s, "declare run 9S-KS");
    act(&mut s, "announce");
    assert_eq!(s.announcement().elder_value, Some(50));
    let ann = s
        .legal_actions()
        .iter()
        .find(|&a| s.action_to_string(a).starts_with("announce"))
        .expect("announce");
    act(&mut s, "declare run 7C-9C");
    act(&mut s, "declare run 10H-KH");
    // The younger's move text says only his own reply: the elder's top card is told to him
    // after he commits.
    assert_eq!(s.action_to_string(ann), "announce: equal");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(a.reply, Some(Reply::Equal));
    assert_eq!(a.elder_top, Some(Rank::King));
    assert_eq!(a.second_reply, Some(Reply::Equal));
    assert_eq!(a.in_trumps, Some(1));
    assert_eq!(a.winner, Some(1));
    assert_eq!(s.sequence_points(), [0, 70]);
    assert_eq!(s.shown(), cards("10H JH QH KH 7C 8C 9C"));
    // The loser's sequence is never shown.
    let v = s.view(Viewer::Seat(1)).expect("view");
    assert!(v.sequences[0].is_none());
    assert_eq!(v.known_cards[0], CardSet::EMPTY);
}

/// The `to act: you; legal: …` line of `observation_string`.
fn legal_line(s: &KlaberjassState, seat: usize) -> String {
    let text = s.observation_string(seat).expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("to act: you; legal: "))
        .unwrap_or_else(|| panic!("no legal line in\n{text}"))
        .to_owned()
}

/// The `announcements: …` line of `observation_string`.
fn announcements_line(s: &KlaberjassState, seat: usize) -> String {
    let text = s.observation_string(seat).expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("announcements: "))
        .unwrap_or_else(|| panic!("no announcements line in\n{text}"))
        .to_owned()
}

#[test]
fn the_observation_text_lists_the_moves_as_they_are_offered_and_reads_the_announcements() {
    // The legal line shows the same texts as the moves offered (`announce: equal`, not a bare
    // `announce`), and the protocol of §8.4 reads step by step.
    let g = game(&[]);
    let elder = "9S 10S JS QS KS AD 8D AC JC";
    let dealer = "10H JH QH KH 7C 8C 9C 10D QD";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "7D",
        "AS",
        &["pass", "pass", "name hearts"],
    );
    act(&mut s, "declare run 9S-KS");
    assert_eq!(legal_line(&s, 0), texts(&s).join(", "));
    assert!(legal_line(&s, 0).starts_with("announce 50"));
    act(&mut s, "announce");
    assert_eq!(announcements_line(&s, 1), "elder: 50");
    act(&mut s, "declare run 7C-9C");
    act(&mut s, "declare run 10H-KH");
    assert_eq!(legal_line(&s, 1), texts(&s).join(", "));
    assert!(legal_line(&s, 1).starts_with("announce: equal"));
    act(&mut s, "announce");
    assert_eq!(
        announcements_line(&s, 0),
        "elder: 50; younger: equal; elder's top: K; younger: equal; seat 1: in trumps; \
         sequences score for seat 1"
    );
    // Nobody declares anything.
    let mut s = dealt(
        &g,
        PLAIN_ELDER,
        PLAIN_DEALER,
        "QD",
        "8H",
        &["pass", "pass", "name hearts"],
    );
    while s.phase() != Phase::Announce {
        let t = if s.phase() == Phase::Exchange1 {
            "wait"
        } else {
            "keep"
        };
        act(&mut s, t);
    }
    assert_eq!(legal_line(&s, 0), "announce none");
    act(&mut s, "announce");
    assert!(legal_line(&s, 1).starts_with("announce: good"));
    act(&mut s, "announce");
    assert_eq!(
        announcements_line(&s, 1),
        "elder: none; younger: none either; nobody scores sequences"
    );
}

#[test]
fn e3_variant_equal_non_trump_sequences_nobody_scores_or_elder_by_option() {
    let a = compare("AS KS QS", "AD KD QD", Suit::Hearts, false);
    assert_eq!(a.winner, None);
    assert_eq!(a.second_reply, Some(Reply::Equal));
    assert_eq!(a.in_trumps, None);
    let a = compare("AS KS QS", "AD KD QD", Suit::Hearts, true);
    assert_eq!(a.winner, Some(0));
    // Through the engine, with the option.
    for (rule, points) in [("nobody_scores", [0, 0]), ("elder_scores", [20, 0])] {
        let g = game(&[("equal_sequence_rule", rule)]);
        let elder = "AS KS QS 9C 7D 10H 8C JD 7H";
        let dealer = "AD KD QD 9S 7C JH 10S 8H JC";
        let mut s = dealt(
            &g,
            elder,
            dealer,
            "9H",
            "7S",
            &["pass", "pass", "name clubs"],
        );
        act(&mut s, "declare run QS-AS");
        act(&mut s, "announce");
        act(&mut s, "declare run QD-AD");
        act(&mut s, "announce");
        assert_eq!(s.sequence_points(), points, "{rule}");
    }
}

#[test]
fn sequence_values_are_20_for_three_and_50_for_four_or_more() {
    assert_eq!(decl("7C 8C 9C", Suit::Hearts).points, 20);
    assert_eq!(decl("7C 8C 9C 10C", Suit::Hearts).points, 50);
    assert_eq!(decl("7C 8C 9C 10C JC QC", Suit::Hearts).points, 50);
}

#[test]
fn edge_09_sequence_comparison() {
    // 50 beats 20 regardless of the top.
    let a = compare("7C 8C 9C 10C", "QD KD AD", Suit::Hearts, false);
    assert_eq!((a.reply, a.winner), (Some(Reply::Good), Some(0)));
    // A five-card 50 topped by Q loses to a four-card 50 topped by K.
    let a = compare("8C 9C 10C JC QC", "10D JD QD KD", Suit::Hearts, false);
    assert_eq!(a.reply, Some(Reply::Equal));
    assert_eq!(a.elder_top, Some(Rank::Queen));
    assert_eq!((a.second_reply, a.winner), (Some(Reply::NotGood), Some(1)));
    // Trump breaks equal tops.
    let a = compare("JH QH KH", "JD QD KD", Suit::Hearts, false);
    assert_eq!((a.in_trumps, a.winner), (Some(0), Some(0)));
    // Equal non-trump: nobody, or elder by option.
    assert_eq!(
        compare("JC QC KC", "JD QD KD", Suit::Hearts, false).winner,
        None
    );
    assert_eq!(
        compare("JC QC KC", "JD QD KD", Suit::Hearts, true).winner,
        Some(0)
    );
    // Younger lower top.
    let a = compare("JC QC KC", "9D 10D JD", Suit::Hearts, false);
    assert_eq!((a.second_reply, a.winner), (Some(Reply::Good), Some(0)));
}

#[test]
fn edge_10_natural_order_for_sequences() {
    for (hand, n) in [
        ("9H 10H JH", 1),
        ("10H JH QH", 1),
        ("QH KH AH", 1),
        ("KH AH 7H", 0),
        ("7H 8H 10H", 0),
    ] {
        assert_eq!(runs(cards(hand)).1, n, "{hand}");
    }
}

#[test]
fn edge_11_the_winner_scores_all_declared_sequences_the_loser_none() {
    let g = game(&[]);
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC AC JS QS KS 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    act(&mut s, "declare run 7C-10C");
    act(&mut s, "declare run 7D-9D");
    act(&mut s, "announce");
    act(&mut s, "declare run QC-AC");
    act(&mut s, "declare run JS-KS");
    act(&mut s, "announce");
    assert_eq!(s.announcement().reply, Some(Reply::Good));
    assert_eq!(s.sequence_points(), [70, 0]);
}

#[test]
fn edge_12_withheld_sequences_are_neither_compared_nor_scored_nor_revealed() {
    let g = game(&[]);
    // Elder withholds his 50 and declares only a 20 topped by 9; younger's 20 topped by K wins.
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC JC JS QS 8S 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    act(&mut s, "declare run 7D-9D");
    act(&mut s, "announce");
    assert_eq!(s.announcement().elder_value, Some(20));
    act(&mut s, "declare run JC-KC");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(
        (a.reply, a.second_reply, a.winner),
        (Some(Reply::Equal), Some(Reply::NotGood), Some(1))
    );
    assert_eq!(s.sequence_points(), [0, 20]);
    // The younger player withheld his JS-QS… no: 8S JS QS is no run; his shown cards are JC-KC.
    assert_eq!(s.shown(), cards("JC QC KC"));
    let v = s.view(Viewer::Seat(1)).expect("view");
    assert!(
        v.sequences[0].is_none(),
        "elder's sequences are not revealed"
    );
    assert_eq!(v.known_cards[0], CardSet::EMPTY);
    // Declarations are private events: the opponent does not learn that one happened.
    let mut t = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    let d = t.string_to_action("declare run 7C-10C").expect("parse");
    assert_eq!(t.action_to_string_for(Viewer::Seat(1), d), None);
    assert_eq!(t.action_to_string_for(Viewer::Spectator, d), None);
    assert_eq!(
        t.action_to_string_for(Viewer::Seat(0), d).as_deref(),
        Some("declare run 7C-10C")
    );
    let before = t.public_move_number();
    t.apply(d).expect("legal");
    assert_eq!(t.public_move_number(), before);
}

#[test]
fn edge_13_elder_announces_none_and_younger_with_a_sequence_wins() {
    let a = compare("7C 9C JC", "QD KD AD", Suit::Hearts, false);
    assert_eq!(a.elder_value, Some(0));
    assert_eq!((a.reply, a.winner), (Some(Reply::NotGood), Some(1)));
    // Both none: no score.
    let a = compare("7C 9C JC", "QD 9D AD", Suit::Hearts, false);
    assert_eq!((a.reply, a.winner), (Some(Reply::Good), None));
}

#[test]
fn edge_21_an_eight_card_run_scores_50_once() {
    let d = decl("7C 8C 9C 10C JC QC KC AC", Suit::Hearts);
    assert_eq!(d.points, 50);
    assert_eq!(runs(cards("7C 8C 9C 10C JC QC KC AC")).1, 1);
}

#[test]
fn declarations_are_in_ascending_item_order_and_only_maximal_runs() {
    let g = game(&[]);
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC AC JS QS KS 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    assert_eq!(
        texts(&s),
        vec!["announce none", "declare run 7C-10C", "declare run 7D-9D"]
    );
    act(&mut s, "declare run 7D-9D");
    assert_eq!(
        texts(&s),
        vec!["announce 20"],
        "items in ascending order only"
    );
    assert!(try_act(&mut s, "declare run 8C-10C").is_err());
}
