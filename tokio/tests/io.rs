//! Network and file I/O: tokio's outside an exploration. Inside one, the
//! calls this crate wraps are refused with a message that names them, and
//! tokio's own network types, which find no tokio runtime there, make the
//! report say the test cannot be checked (a misuse, not a bug).

#[tokio::test]
async fn file_io_and_name_lookups_name_the_call_inside_an_exploration() {
    let read = tokio::fs::read("Cargo.toml").await;
    if cfg!(feature = "sim") {
        let e = read.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Unsupported);
        assert_eq!(
            e.to_string(),
            "`tokio::fs::read` inside a samaritan exploration: network and file I/O are not simulated; run it \
             outside the exploration or give the code under test an in-memory stand-in"
        );
        let e = tokio::fs::create_dir_all("target/never").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::create_dir_all` inside"), "{e}");
        let e = tokio::net::lookup_host("localhost:80").await.err().unwrap();
        assert!(e.to_string().starts_with("`tokio::net::lookup_host` inside"), "{e}");
        let e = tokio::fs::File::create("target/never").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::File::create` inside"), "{e}");
        let e = tokio::fs::OpenOptions::new().read(true).open("Cargo.toml").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::OpenOptions::open` inside"), "{e}");
    } else {
        assert!(read.unwrap().starts_with(b"[package]"));
        assert!(tokio::fs::OpenOptions::new().read(true).open("Cargo.toml").await.is_ok());
    }
}

#[cfg(not(feature = "sim"))]
use tokio as real;
#[cfg(feature = "sim")]
use tokio::__private::tokio as real;

/// The network types are tokio's own: a function written against real
/// tokio's `TcpListener` takes this crate's (under `sim` too).
fn takes_tokios(listener: &real::net::TcpListener) -> std::net::SocketAddr {
    listener.local_addr().unwrap()
}

#[test]
fn outside_an_exploration_network_io_is_tokios() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = takes_tokios(&listener);
        let client = tokio::spawn(async move {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            let mut s: tokio::net::TcpStream = socket.connect(addr).await.unwrap();
            s.write_all(b"ping").await.unwrap();
        });
        let (mut conn, _) = std::future::poll_fn(|cx| listener.poll_accept(cx)).await.unwrap();
        let mut got = Vec::new();
        conn.read_to_end(&mut got).await.unwrap();
        client.await.unwrap();
        assert_eq!(got, b"ping");
    });
}

#[cfg(feature = "sim")]
#[test]
fn tokios_network_types_inside_an_exploration_are_a_misuse_that_names_the_panic() {
    use samaritan::Outcome;
    let report = crate::support::explore(|| async {
        let _ = tokio::net::TcpListener::bind("127.0.0.1:0").await;
    });
    assert!(report.is_misuse() && !report.is_failure(), "{report}");
    assert_eq!(report.executions, 1);
    let Outcome::Misuse { actor, detail } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "main");
    assert!(
        detail.starts_with(
            "the test reaches tokio's own runtime, which an exploration does not run: tokio's network types"
        ),
        "{detail}"
    );
    assert!(
        detail.ends_with(": there is no reactor running, must be called from the context of a Tokio 1.x runtime)"),
        "{detail}"
    );
    // Any other panic is still a bug.
    let report = crate::support::explore(|| async { panic!("there is no bug here, only a panic") });
    assert!(matches!(report.outcome, Outcome::Panic { .. }), "{report}");
}
