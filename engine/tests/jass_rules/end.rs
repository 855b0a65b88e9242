//! §11: end of game: E6, edge 17, options `target_score`, `end_check`, engine `scope`.

use super::*;

// ---------------------------------------------------------------------------------------------
// §11 — end of game: E6, edge 17, options `target_score`, `end_check`, engine `scope`
// ---------------------------------------------------------------------------------------------

/// E6 deal: trump Bells (×2), forehand 0; raw A 48 (card points, B takes the last trick),
/// B 104 + 5 = 109: A +96, B +218. Nobody declares Wys; no Stöck (K and O of Bells split).
const E6_HANDS: [&str; 4] = [
    "6B UB 9A AR 6S 7S 8S 9S AS",
    "9B KB AB 7R 10R KR 10S US KS",
    "7A 8A KA AA 8R 9R UR OR OS",
    "7B 8B 10B OB 6A 10A UA OA 6R",
];
const E6_PLAYS: &str = "9S KS OS 6R  US 7A OB UB  AS 9B AA 10A  10S KA 8B 8S  7B 6B AB OR \
                        10R 9R UA AR  9A KR 8A OA  6A 6S 7R 8R  10B 7S KB UR";

fn e6_state(extra: &[(&str, &str)]) -> JassState {
    let mut s = deal(&game_fh0(extra), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert_eq!(s.phase(), Phase::Play);
        act(&mut s, &format!("play {c}"));
    }
    s
}

#[test]
fn e6_deal_is_a_96_b_218() {
    let s = e6_state(&[("scope", "deal")]);
    assert_eq!(s.card_points(), [48, 104]);
    assert_eq!(last_trick_team(&s), 1);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.raw, [48, 109]);
    assert_eq!(ld.scored, [96, 218]);
}

#[test]
fn edge_17_both_over_target_higher_total_wins() {
    // E6 / §11: both teams at or above the target after the deal -> the higher total wins,
    // even though A also reached it. (E6 starts from 2420 : 2390 with target 2500; a state
    // cannot start with scores, so the same deal is played from 0 : 0 with target 90.)
    let s = e6_state(&[("target_score", "90")]);
    assert_eq!(s.scores(), [96, 218]);
    assert!(s.scores()[0] >= 90 && s.scores()[1] >= 90);
    assert_eq!(s.phase(), Phase::Over);
    assert_eq!(s.winner(), Some(1));
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    assert_eq!(s.view(Viewer::Spectator).unwrap().winner, Some(1));
}

#[test]
fn option_target_score() {
    // §16 `target_score` (default 2500): the game ends after the deal that leaves a team at
    // or above it.
    for (target, over, winner) in [
        ("2500", false, None),
        ("1000", false, None),
        ("219", false, None),
        ("218", true, Some(1)),
        ("96", true, Some(1)),
    ] {
        let s = e6_state(&[("target_score", target)]);
        assert_eq!(s.scores(), [96, 218], "target {target}");
        assert_eq!(s.is_terminal(), over, "target {target}");
        assert_eq!(s.winner(), winner, "target {target}");
        if !over {
            assert_eq!(s.phase(), Phase::Deal, "next deal");
            assert_eq!(s.dealer(), 0);
            assert!(s.returns().iter().all(|&r| r == 0.0));
        }
    }
    assert_eq!(
        game_with(&[]).options()["target_score"],
        OptionValue::Int(2500)
    );
}

#[test]
fn end_checked_only_after_the_deal_by_default() {
    // §11 (`end_check = end_of_deal`): match scores change only when the deal is scored.
    let mut s = deal(&game_fh0(&[("target_score", "90")]), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert_eq!(s.scores(), [0, 0]);
        assert!(!s.is_terminal());
        act(&mut s, &format!("play {c}"));
    }
    assert_eq!(s.scores(), [96, 218]);
    assert!(s.is_terminal());
}

#[test]
fn end_exact_tie_at_target_plays_another_deal() {
    // §11 [decision]: equal totals at or above the target -> another deal. Deal 2 is deal 1
    // turned by one seat (the dealer moved on), so the teams swap their results: both end on
    // 157 = target.
    let game = game_fh0(&[("target_score", "157")]);
    let mut s = game.new_initial_state();
    deal_into(&mut s, E6_HANDS);
    act(&mut s, "trump roses");
    play_out(&mut s);
    let [a, b] = s.scores();
    assert_eq!(a + b, 157);
    assert!(a < 157 && b < 157 && a != b);
    assert_eq!(s.phase(), Phase::Deal);
    assert_eq!(s.dealer(), 0);
    let turned = [E6_HANDS[3], E6_HANDS[0], E6_HANDS[1], E6_HANDS[2]];
    deal_into(&mut s, turned);
    assert_eq!(seat(&s), 1);
    act(&mut s, "trump roses");
    play_out(&mut s);
    assert_eq!(s.scores(), [157, 157]);
    assert_eq!(s.last_deal().unwrap().scored, [b, a]);
    assert!(!s.is_terminal(), "a tie at the target plays another deal");
    assert_eq!(s.winner(), None);
    assert_eq!(s.phase(), Phase::Deal);
    assert!(s.returns().iter().all(|&r| r == 0.0));
    // Deal 3 decides (157 points are odd, so no second tie without Wys/Stöck/Match).
    s.resolve_chance(&mut SeededRng::new(5));
    act(&mut s, "trump acorns");
    play_out(&mut s);
    assert!(s.is_terminal());
    let sc = s.scores();
    assert_ne!(sc[0], sc[1]);
    let w = usize::from(sc[1] > sc[0]);
    assert_eq!(s.winner(), Some(w));
    assert_eq!(s.returns()[w], 1.0);
    assert_eq!(s.returns()[1 - w], -1.0);
}

/// Trump Roses, forehand 0. Trick 1: 7R, seat 1 declares 6B-8B (20) and plays OR, seat 2
/// wins with AR (A: 3 + 11 = 14). Trick 2: UR, 9R, 10R and seat 1's KR (Stöck, B 40).
const IMM_HANDS: [&str; 4] = [
    "7R 10R 6A 7A 8A 9A 10A UA OA",
    "OR KR 6B 7B 8B KA AA 6S 7S",
    "AR UR 8R 8S 9S 10S US OS KS",
    "6R 9R AS 9B 10B UB OB KB AB",
];

fn immediate(target: &str) -> JassState {
    let game = game_fh0(&[("end_check", "immediate"), ("target_score", target)]);
    let mut s = deal(&game, IMM_HANDS);
    script(
        &mut s,
        "trump roses, play 7R, wys run 6B-8B, play OR, play AR, play 6R",
    );
    s
}

#[test]
fn option_end_check_immediate_credits_points_as_they_arise() {
    // §16 `end_check = immediate`: Wys at the end of trick 1, trick points after each trick,
    // Stöck when played; the end-of-deal total equals the deal score (nothing counted twice).
    let mut s = immediate("2500");
    assert_eq!(s.scores(), [14, 20]);
    script(&mut s, "play UR, play 9R, play 10R");
    assert_eq!(s.scores(), [14, 20]);
    act(&mut s, "play KR");
    assert_eq!(s.scores(), [14 + 20 + 14 + 10 + 4, 20 + 20]);
    play_out(&mut s);
    assert_eq!(s.phase(), Phase::Deal);
    assert_eq!(s.scores(), s.last_deal().unwrap().scored);
    // Multiplied at once: the same deal in a Shields game credits twice the trick points.
    let game = game_fh0(&[("end_check", "immediate")]);
    let mut s = deal(
        &game,
        IMM_HANDS.map(swap_all).each_ref().map(String::as_str),
    );
    script(
        &mut s,
        "trump shields, play 7S, wys run 6B-8B, play OS, play AS, play 6S",
    );
    assert_eq!(s.scores(), [28, 40]);
}

#[test]
fn option_end_check_immediate_team_wins_the_instant_it_reaches_the_target() {
    let mut s = immediate("60");
    script(&mut s, "play UR, play 9R, play 10R");
    assert!(!s.is_terminal());
    act(&mut s, "play KR"); // completes trick 2: A 14 + 48 = 62
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(0));
    assert_eq!(&s.returns()[..], &[1.0, -1.0, 1.0, -1.0]);
    assert_eq!(s.apply(0), Err(Error::GameOver));
}

#[test]
fn option_end_check_immediate_wys_before_stich() {
    // "Stöck, Wys, Stich": at the end of trick 1 both teams reach 14 (B by its Wys 20, A by
    // the trick's 14); the Wys counts first, so B wins and A's trick is not credited.
    let s = immediate("14");
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(1));
    assert_eq!(s.scores(), [0, 20]);
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    // The same position under `end_of_deal` goes on.
    let game = game_fh0(&[("target_score", "14")]);
    let mut s = deal(&game, IMM_HANDS);
    script(
        &mut s,
        "trump roses, play 7R, wys run 6B-8B, play OR, play AR, play 6R",
    );
    assert!(!s.is_terminal());
    assert_eq!(s.scores(), [0, 0]);
}

#[test]
fn option_end_check_immediate_stoeck_before_stich() {
    // Trick 2's last card is seat 1's KR: B reaches 40 by Stöck, A would reach 62 by the
    // trick; Stöck counts first, so B wins.
    let mut s = immediate("40");
    script(&mut s, "play UR, play 9R, play 10R");
    assert!(!s.is_terminal());
    act(&mut s, "play KR");
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(1));
    assert_eq!(s.scores(), [14, 40]);
}

#[test]
fn scope_deal_terminal_after_one_deal_target_does_not_apply() {
    // §11 returns, `scope = deal`: terminal after one deal; returns = own team's deal score
    // minus the other's; no winner; the target is ignored.
    let s = e6_state(&[("scope", "deal"), ("target_score", "1")]);
    assert!(s.is_terminal());
    assert_eq!(s.winner(), None);
    // The cumulative scores hold the deal's scored totals, as after deal 1 of a match.
    assert_eq!(s.scores(), s.last_deal().unwrap().scored);
    let json = serde_json::to_value(s.view(Viewer::Seat(0)).unwrap()).unwrap();
    assert_eq!(
        json["scores"],
        serde_json::json!(s.last_deal().unwrap().scored)
    );
    assert_eq!(&s.returns()[..], &[-122.0, 122.0, -122.0, 122.0]);
    let s = e6_state(&[("scope", "deal"), ("target_score", "100000")]);
    assert!(s.is_terminal());
    assert_eq!(s.rewards(), s.returns());
}

#[test]
fn scope_match_returns_zero_until_terminal_then_plus_minus_one() {
    // §11 returns, `scope = match` (default): 0 until terminal, then ±1 per team.
    let mut s = deal(&game_fh0(&[("target_score", "90")]), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert!(s.returns().iter().all(|&r| r == 0.0));
        assert!(s.rewards().iter().all(|&r| r == 0.0));
        act(&mut s, &format!("play {c}"));
    }
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
    assert_eq!(json["phase"], "over");
    assert_eq!(json["winner"], 1);
    assert_eq!(json["scores"], serde_json::json!([96, 218]));
    assert_eq!(json["returns"], serde_json::json!([-1.0, 1.0, -1.0, 1.0]));
}
