//! The observation layout covers the observation and bounds every value.

use super::*;

/// The named slices cover the observation exactly, in order, and every value written in
/// random games (both scopes, both maker tie rules) lies within its slice's bounds.
#[test]
fn the_observation_layout_covers_the_observation_and_bounds_every_value() {
    let mut sets: Vec<&[(&str, &str)]> = OPTION_SETS.to_vec();
    sets.push(&[("scope", "deal"), ("maker_tie_rule", "hang")]);
    sets.push(&[("scope", "match"), ("target_score", "300")]);
    for opts in sets {
        let g = game(opts);
        let layout = g.observation_layout();
        let mut next = 0;
        for slice in &layout {
            assert_eq!(slice.offset, next, "{} is not contiguous", slice.name);
            assert!(slice.low < slice.high, "{opts:?}: {}", slice.name);
            next += slice.len();
        }
        assert_eq!(next, g.observation_len());
        assert_eq!(next, cardhouse::games::klaberjass::layout::TOTAL);
        for seed in 0..12 {
            play(g, seed, |s, _| {
                for seat in 0..2 {
                    let obs = s.observation(seat).expect("obs");
                    for slice in &layout {
                        for (k, &x) in obs[slice.offset..slice.offset + slice.len()]
                            .iter()
                            .enumerate()
                        {
                            assert!(
                                slice.low <= x && x <= slice.high,
                                "{opts:?}: {}[{k}] = {x} outside {}..={}\n{s}",
                                slice.name,
                                slice.low,
                                slice.high
                            );
                        }
                    }
                }
            });
        }
    }
    let names: Vec<&str> = KlaberjassGame::default()
        .observation_layout()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names.first(), Some(&"hand"));
    assert_eq!(names.last(), Some(&"held_over"));
}
