//! The input root: the request's files as a Merkle tree of REAPI
//! `Directory` messages (entries sorted by name, as the API requires, so
//! the same files give the same root digest on every machine), with every
//! blob it names.

use std::collections::BTreeMap;
use std::path::Path;

use prost::Message;
use sha2::{Digest as _, Sha256};

use crate::digest::hex;

use super::proto::build::bazel::remote::execution::v2::{
    Digest, Directory, DirectoryNode, FileNode, SymlinkNode,
};

/// Where a blob's bytes are: a file of the worktree, or in memory (the
/// `Directory`, `Command` and `Action` messages).
#[derive(Debug, Clone)]
pub(crate) enum Source {
    File(std::path::PathBuf),
    Bytes(Vec<u8>),
}

/// Every blob of a tree, by hash (a content listed twice is sent once).
#[derive(Debug, Default)]
pub(crate) struct Blobs {
    pub(crate) by_hash: BTreeMap<String, (Digest, Source)>,
}

impl Blobs {
    /// Adds a message's encoding and gives its digest.
    pub(crate) fn message(&mut self, message: &impl Message) -> Digest {
        let bytes = message.encode_to_vec();
        let digest = digest_of(&bytes);
        self.by_hash
            .entry(digest.hash.clone())
            .or_insert_with(|| (digest.clone(), Source::Bytes(bytes)));
        digest
    }
}

/// The sha256 digest of `bytes`.
pub(crate) fn digest_of(bytes: &[u8]) -> Digest {
    Digest {
        hash: hex(&Sha256::digest(bytes)),
        size_bytes: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
    }
}

/// A folder of the tree being built.
#[derive(Default)]
struct Folder {
    files: BTreeMap<String, FileNode>,
    links: BTreeMap<String, SymlinkNode>,
    folders: BTreeMap<String, Folder>,
}

/// The root `Directory`'s digest of `files` (worktree-relative, `/`) read
/// under `worktree`; their blobs and the directories' go in `blobs`. A
/// file that vanished since the snapshot is left out (the check sees
/// the worktree as it is, as a local one would); a path that climbs out
/// (`..`, absolute) is an error.
pub(crate) fn input_root(
    worktree: &Path,
    files: &[String],
    blobs: &mut Blobs,
) -> Result<Digest, String> {
    let mut root = Folder::default();
    for path in files {
        let parts: Vec<&str> = path.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return Err(format!("input path {path:?} is not a plain relative path"));
        }
        let full = worktree.join(path);
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            continue;
        };
        let (name, dirs) = parts.split_last().expect("split gives one part at least");
        let folder = dirs.iter().fold(&mut root, |folder, dir| {
            folder.folders.entry((*dir).to_string()).or_default()
        });
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&full)
                .map_err(|err| format!("cannot read the link {path}: {err}"))?;
            folder.links.insert(
                (*name).to_string(),
                SymlinkNode {
                    name: (*name).to_string(),
                    target: target.to_string_lossy().replace('\\', "/"),
                    node_properties: None,
                },
            );
        } else if meta.is_file() {
            let bytes = std::fs::read(&full).map_err(|err| format!("cannot read {path}: {err}"))?;
            let digest = digest_of(&bytes);
            blobs
                .by_hash
                .entry(digest.hash.clone())
                .or_insert_with(|| (digest.clone(), Source::File(full.clone())));
            folder.files.insert(
                (*name).to_string(),
                FileNode {
                    name: (*name).to_string(),
                    digest: Some(digest),
                    is_executable: executable(&meta),
                    node_properties: None,
                },
            );
        }
    }
    Ok(seal(root, blobs))
}

/// A folder's `Directory` message, its children's first; gives its digest.
fn seal(folder: Folder, blobs: &mut Blobs) -> Digest {
    let directories = folder
        .folders
        .into_iter()
        .map(|(name, child)| DirectoryNode {
            name,
            digest: Some(seal(child, blobs)),
        })
        .collect();
    let directory = Directory {
        files: folder.files.into_values().collect(),
        directories,
        symlinks: folder.links.into_values().collect(),
        node_properties: None,
    };
    blobs.message(&directory)
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

/// Windows has no executable bit: git's (the index's mode) is not known
/// here, so nothing is marked executable.
#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_files_give_the_same_root_whatever_their_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("a/b")).expect("dirs");
        std::fs::write(dir.path().join("a/b/x.txt"), "x").expect("x");
        std::fs::write(dir.path().join("top.txt"), "top").expect("top");
        let one = ["a/b/x.txt".to_string(), "top.txt".to_string()];
        let two = ["top.txt".to_string(), "a/b/x.txt".to_string()];
        let mut blobs = Blobs::default();
        let first = input_root(dir.path(), &one, &mut blobs).expect("root");
        let second = input_root(dir.path(), &two, &mut Blobs::default()).expect("root");
        assert_eq!(first, second);
        // Two files and three directories (root, a, a/b).
        assert_eq!(blobs.by_hash.len(), 5);
        std::fs::write(dir.path().join("a/b/x.txt"), "y").expect("x");
        let changed = input_root(dir.path(), &one, &mut Blobs::default()).expect("root");
        assert_ne!(first, changed);
    }

    #[test]
    fn a_path_that_climbs_out_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        for bad in ["../x", "a//b", "./a", ""] {
            let err = input_root(dir.path(), &[bad.to_string()], &mut Blobs::default());
            assert!(err.is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_empty_directory_has_the_well_known_digest() {
        let digest = input_root(Path::new("."), &[], &mut Blobs::default()).expect("root");
        // sha256 of no bytes: an empty Directory message encodes to nothing.
        assert_eq!(
            digest.hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(digest.size_bytes, 0);
    }
}
