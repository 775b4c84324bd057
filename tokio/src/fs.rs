//! tokio's `fs` module; under `sim`, the common entry points of file I/O
//! refuse to run inside an exploration, where it is not simulated.
//!
//! The free functions ([`read`], [`write()`], [`create_dir_all`],
//! [`metadata`], ...), [`File::open`], [`File::create`] and
//! [`OpenOptions::open`] return an `io::Error` of kind `Unsupported`
//! naming the call inside an exploration; outside one they are tokio's.
//! [`File`] wraps tokio's and dereferences to it (`AsyncRead`,
//! `AsyncWrite` and `AsyncSeek` too). The rest of the module
//! (`DirBuilder`, `symlink`, ...) is tokio's, unchecked: inside an
//! exploration it fails as tokio fails without a runtime.

use std::fs::{Metadata, Permissions};
use std::io::{self, SeekFrom};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use tokio::fs::*;
use tokio::io::AsyncSeek;

use crate::io_guard::{forwards_io, refuse_inside_exploration};

/// tokio's free functions, each refusing to run inside an exploration.
macro_rules! guarded {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        #[doc = concat!("Same API as [`tokio::fs::", stringify!($name), "`]; refused inside an exploration.")]
        pub async fn $name($($arg: $ty),*) -> io::Result<$ret> {
            refuse_inside_exploration(concat!("tokio::fs::", stringify!($name)))?;
            tokio::fs::$name($($arg),*).await
        }
    )*};
}

guarded! {
    fn canonicalize(path: impl AsRef<Path>) -> PathBuf;
    fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> u64;
    fn create_dir(path: impl AsRef<Path>) -> ();
    fn create_dir_all(path: impl AsRef<Path>) -> ();
    fn hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> ();
    fn metadata(path: impl AsRef<Path>) -> Metadata;
    fn read(path: impl AsRef<Path>) -> Vec<u8>;
    fn read_dir(path: impl AsRef<Path>) -> ReadDir;
    fn read_link(path: impl AsRef<Path>) -> PathBuf;
    fn read_to_string(path: impl AsRef<Path>) -> String;
    fn remove_dir(path: impl AsRef<Path>) -> ();
    fn remove_dir_all(path: impl AsRef<Path>) -> ();
    fn remove_file(path: impl AsRef<Path>) -> ();
    fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> ();
    fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> ();
    fn symlink_metadata(path: impl AsRef<Path>) -> Metadata;
    fn try_exists(path: impl AsRef<Path>) -> bool;
    fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> ();
}

/// An open file; tokio's, refused inside an exploration.
#[derive(Debug)]
pub struct File(tokio::fs::File);

impl File {
    /// Opens a file for reading; same API as tokio's `File::open`.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        refuse_inside_exploration("tokio::fs::File::open")?;
        tokio::fs::File::open(path).await.map(File)
    }

    /// Creates (or truncates) a file for writing; same API as tokio's
    /// `File::create`.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        refuse_inside_exploration("tokio::fs::File::create")?;
        tokio::fs::File::create(path).await.map(File)
    }

    /// Returns options to open a file with; same API as tokio's
    /// `File::options`.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps a std file; same API as tokio's `File::from_std`.
    pub fn from_std(std: std::fs::File) -> File {
        File(tokio::fs::File::from_std(std))
    }

    /// Converts to a std file once pending operations are done; same API
    /// as tokio's `File::into_std`.
    pub async fn into_std(self) -> std::fs::File {
        self.0.into_std().await
    }

    /// Returns tokio's file.
    pub fn into_inner(self) -> tokio::fs::File {
        self.0
    }
}

/// Options to open a file with; same API as [`tokio::fs::OpenOptions`]
/// (`open` refused inside an exploration).
#[derive(Clone, Debug, Default)]
pub struct OpenOptions(tokio::fs::OpenOptions);

impl OpenOptions {
    /// Options that open nothing yet: set at least `read` or `write`.
    pub fn new() -> OpenOptions {
        OpenOptions(tokio::fs::OpenOptions::new())
    }

    /// Sets read access.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Sets write access.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Sets append mode.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Sets whether an existing file is truncated.
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Sets whether a missing file is created.
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Sets whether the file must not exist yet.
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// Sets the mode bits a new file gets (Unix).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.0.mode(mode);
        self
    }

    /// Sets flags to pass to `open` (Unix).
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.0.custom_flags(flags);
        self
    }

    /// Opens `path` with these options; same API as tokio's
    /// `OpenOptions::open`.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        refuse_inside_exploration("tokio::fs::OpenOptions::open")?;
        self.0.open(path).await.map(File)
    }
}

forwards_io!(File, tokio::fs::File);

impl AsyncSeek for File {
    fn start_seek(mut self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        Pin::new(&mut self.0).start_seek(position)
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.0).poll_complete(cx)
    }
}
