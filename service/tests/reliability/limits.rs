//! Admission, limits and retention: the match limit is exact, creation can require a
//! credential, ended matches leave, long all-bot matches run in the background.

use super::*;

// ---------------------------------------------------------------------------------------------
// Admission, limits, retention
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_match_limit_is_exact_under_concurrent_creation() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-matches", "10"]);
    let mut tasks = Vec::new();
    for i in 0..40 {
        let mut c = server.matches().await;
        tasks.push(tokio::spawn(async move {
            c.create_match(pb::CreateMatchRequest {
                game: "jass".into(),
                seed: Some(i),
                ..Default::default()
            })
            .await
            .map_err(|s| s.code())
        }));
    }
    let mut created = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => created += 1,
            Err(code) => assert_eq!(code, Code::ResourceExhausted),
        }
    }
    assert_eq!(created, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_matches_can_require_a_credential() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--create-token", "s3cret"]);
    let mut c = server.matches().await;
    let req = || pb::CreateMatchRequest {
        game: "jass".into(),
        ..Default::default()
    };
    let err = c.create_match(req()).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = c.create_match(authed("wrong", req())).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    c.create_match(authed("s3cret", req())).await.unwrap();
}

/// Ended matches leave after the retention period (memory and store), freeing their slot;
/// their record is fetchable until then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_matches_leave_after_their_retention_period() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-matches", "1", "--retention-secs", "1"]);
    let mut c = server.matches().await;
    let all_bots = || pb::CreateMatchRequest {
        game: "jass".into(),
        options: [("scope".to_owned(), "deal".to_owned())].into(),
        seed: Some(3),
        seats: vec![pb::SeatKind::RandomBot as i32; 4],
        ismcts_iterations: None,
        bots: Default::default(),
        time_control: None,
    };
    let r = c.create_match(all_bots()).await.unwrap().into_inner();
    let record = |id: String| pb::GetRecordRequest {
        match_id: id,
        ..Default::default()
    };
    // Bots finish it in the background; then its record is there.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match c
            .get_record(authed(&r.owner_token, record(r.match_id.clone())))
            .await
        {
            Ok(_) => break,
            Err(s) if s.code() == Code::FailedPrecondition && Instant::now() < deadline => {
                tokio::task::yield_now().await;
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    let err = c.create_match(all_bots()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    // Bounded wait for the sweep (every half second with this retention).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let err = c
            .get_record(authed(&r.owner_token, record(r.match_id.clone())))
            .await;
        if matches!(&err, Err(s) if s.code() == Code::NotFound) {
            break;
        }
        assert!(Instant::now() < deadline, "still there: {err:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    c.create_match(all_bots()).await.unwrap();
    // Gone from the store too.
    server.kill9();
    let server = must_start(dir.path(), &["--max-matches", "1"]);
    let mut c = server.matches().await;
    let err = c
        .get_record(authed(&r.owner_token, record(r.match_id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
}

/// A long all-bot match is played in the background, not inside CreateMatch; its long
/// record comes in pages that fit the message limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_all_bot_matches_run_in_the_background_and_their_record_comes_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-message-bytes", "65536"]);
    let mut c = server.matches().await;
    let t = Instant::now();
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("target_score".to_owned(), "20000".to_owned())].into(),
            seed: Some(11),
            seats: vec![pb::SeatKind::RandomBot as i32; 4],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap()
        .into_inner();
    eprintln!("CreateMatch of a long all-bot match took {:?}", t.elapsed());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut steps = Vec::new();
    let mut from = 0;
    let mut total;
    loop {
        match c
            .get_record(authed(
                &r.owner_token,
                pb::GetRecordRequest {
                    match_id: r.match_id.clone(),
                    from_step: from,
                    max_steps: 0,
                },
            ))
            .await
        {
            Ok(page) => {
                let page = page.into_inner();
                assert!(prost::Message::encoded_len(&page) <= 65536);
                total = Some(page.total_steps);
                steps.extend(page.steps);
                match page.next_step {
                    Some(n) => from = n,
                    None => break,
                }
            }
            Err(s) if s.code() == Code::FailedPrecondition && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    let total = total.unwrap();
    assert!(total > 2000, "a long match: {total} steps");
    assert_eq!(steps.len() as u64, total);
    assert!(steps.iter().enumerate().all(|(i, s)| s.index() == i as u64));
}
