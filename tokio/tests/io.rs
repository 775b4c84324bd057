//! Network and file I/O: tokio's outside an exploration, refused with a
//! message that names the call inside one.

#[tokio::test]
async fn network_and_file_io_name_the_call_inside_an_exploration() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await;
    let read = tokio::fs::read("Cargo.toml").await;
    if cfg!(feature = "sim") {
        let e = listener.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Unsupported);
        assert_eq!(
            e.to_string(),
            "`tokio::net::TcpListener::bind` inside a samaritan exploration: network and file I/O are not \
             simulated; run it outside the exploration or give the code under test an in-memory stand-in"
        );
        assert!(read.unwrap_err().to_string().starts_with("`tokio::fs::read` inside a samaritan exploration"));
        let e = tokio::fs::create_dir_all("target/never").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::create_dir_all` inside"), "{e}");
        let e = tokio::net::lookup_host("localhost:80").await.err().unwrap();
        assert!(e.to_string().starts_with("`tokio::net::lookup_host` inside"), "{e}");
        let e = tokio::fs::File::create("target/never").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::File::create` inside"), "{e}");
        let e = tokio::fs::OpenOptions::new().read(true).open("Cargo.toml").await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::fs::OpenOptions::open` inside"), "{e}");
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        let e = socket.listen(16).unwrap_err();
        assert!(e.to_string().starts_with("`tokio::net::TcpSocket::listen` inside"), "{e}");
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        let e = socket.connect("127.0.0.1:9".parse().unwrap()).await.unwrap_err();
        assert!(e.to_string().starts_with("`tokio::net::TcpSocket::connect` inside"), "{e}");
    } else {
        assert!(listener.is_ok());
        assert!(read.unwrap().starts_with(b"[package]"));
        assert!(tokio::fs::OpenOptions::new().read(true).open("Cargo.toml").await.is_ok());
    }
}

/// Accepts through `poll_accept`, as a stream adapter does: its stream is
/// the type `tokio::net` names (under `sim` the wrapper, not real tokio's).
async fn accept_by_polling(listener: &tokio::net::TcpListener) -> tokio::net::TcpStream {
    std::future::poll_fn(|cx| listener.poll_accept(cx)).await.unwrap().0
}

#[test]
fn outside_an_exploration_network_io_is_tokios() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(b"ping").await.unwrap();
        });
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut got = Vec::new();
        conn.read_to_end(&mut got).await.unwrap();
        client.await.unwrap();
        assert_eq!(got, b"ping");
        // A socket's `connect` and `listen`, and `poll_accept`, give the
        // types `tokio::net` names.
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener: tokio::net::TcpListener = socket.listen(16).unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            let mut s: tokio::net::TcpStream = socket.connect(addr).await.unwrap();
            s.write_all(b"pong").await.unwrap();
        });
        let mut conn = accept_by_polling(&listener).await;
        let mut got = Vec::new();
        conn.read_to_end(&mut got).await.unwrap();
        client.await.unwrap();
        assert_eq!(got, b"pong");
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::TcpListener::try_from(std_listener).unwrap();
        assert_eq!(listener.local_addr().unwrap().ip().to_string(), "127.0.0.1");
    });
}
