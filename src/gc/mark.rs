//! The mark phase of [`super::gc`]: what the store holds, and what its roots reach.

#![allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A file found in the store: its size and modification time.
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    pub(super) bytes: u64,
    pub(super) mtime: SystemTime,
}

pub(super) fn found(md: &std::fs::Metadata) -> Found {
    Found {
        bytes: md.len(),
        mtime: md.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

/// Regular files of `dir` (none when it does not exist), by name.
pub(super) fn files_of(dir: &Path) -> Result<BTreeMap<String, Found>, StoreError> {
    let mut out = BTreeMap::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io_err(dir)(e)),
    };
    for e in rd {
        let e = e.map_err(io_err(dir))?;
        let md = e.metadata().map_err(io_err(&e.path()))?;
        if md.is_file()
            && let Some(name) = e.file_name().to_str()
        {
            out.insert(name.to_owned(), found(&md));
        }
    }
    Ok(out)
}

/// Everything in the store [`gc`] may remove, listed before anything is decided.
#[derive(Default)]
pub(super) struct Inventory {
    pub(super) objects: BTreeMap<Digest, Found>,
    /// v0.1 documents by identity.
    pub(super) docs: BTreeMap<Digest, Found>,
    /// Executable-bit sidecars by identity.
    pub(super) sidecars: BTreeMap<Digest, Found>,
    /// v0.2 root markers (`snapshots/<id>.tree`) by identity.
    pub(super) tree_marks: BTreeMap<Digest, Found>,
    /// Temporary files: path relative to the store.
    pub(super) temps: Vec<(PathBuf, Found)>,
}

pub(super) fn inventory(store: &Store) -> Result<Inventory, StoreError> {
    let root = store.path();
    let mut inv = Inventory::default();
    let objects = root.join("objects");
    if let Ok(rd) = std::fs::read_dir(&objects) {
        let mut fans: Vec<String> = Vec::new();
        for e in rd {
            let e = e.map_err(io_err(&objects))?;
            if let Some(n) = e.file_name().to_str()
                && n.len() == 2
                && e.file_type().is_ok_and(|t| t.is_dir())
            {
                fans.push(n.to_owned());
            }
        }
        fans.sort();
        for fan in fans {
            for (name, f) in files_of(&objects.join(&fan))? {
                if let Ok(d) = format!("{fan}{name}").parse::<Digest>()
                    && name.len() == 62
                {
                    inv.objects.insert(d, f);
                } else if name.starts_with(".tmp-") {
                    inv.temps
                        .push((Path::new("objects").join(&fan).join(&name), f));
                }
            }
        }
    }
    for (name, f) in files_of(&root.join("snapshots"))? {
        if let Some(id) = name.strip_suffix(".exec.json")
            && let Ok(d) = id.parse::<Digest>()
        {
            inv.sidecars.insert(d, f);
        } else if let Some(id) = name.strip_suffix(".json")
            && let Ok(d) = id.parse::<Digest>()
        {
            inv.docs.insert(d, f);
        } else if let Some(id) = name.strip_suffix(".tree")
            && let Ok(d) = id.parse::<Digest>()
        {
            inv.tree_marks.insert(d, f);
        } else if name.starts_with(".tmp-") {
            inv.temps.push((Path::new("snapshots").join(&name), f));
        }
    }
    for (name, f) in files_of(&root.join("tmp"))? {
        inv.temps.push((Path::new("tmp").join(&name), f));
    }
    for sub in ["sessions", "journal", "statcache"] {
        for (name, f) in files_of(&root.join(sub))? {
            if name.starts_with(".tmp-") {
                inv.temps.push((Path::new(sub).join(&name), f));
            }
        }
    }
    Ok(inv)
}

/// The reference walk: what is reachable, and what is broken.
pub(super) struct Marks<'a> {
    pub(super) store: &'a Store,
    pub(super) objects: HashSet<Digest>,
    pub(super) docs: HashSet<Digest>,
    pub(super) snapshots_seen: HashSet<Digest>,
    pub(super) problems: BTreeSet<String>,
}

impl Marks<'_> {
    /// `d` is referenced by `from`; when `required`, its absence is a problem.
    pub(super) fn object(&mut self, d: Digest, from: &str, required: bool) {
        if self.objects.contains(&d) {
            return;
        }
        if self.store.has_object(&d) {
            self.objects.insert(d);
        } else if required {
            self.problems
                .insert(format!("{from}: object {d} is not in the store"));
        }
    }

    /// `d` is an object read and checked against its name (acceptance records).
    pub(super) fn checked_object(&mut self, d: Digest, from: &str) -> Option<Vec<u8>> {
        match self.store.read_object(&d) {
            Ok(bytes) => {
                self.objects.insert(d);
                Some(bytes)
            }
            Err(e) => {
                self.problems.insert(format!("{from}: {e}"));
                None
            }
        }
    }

    /// The snapshot `id`, a v0.1 document or a v0.2 tree, and everything below it.
    pub(super) fn snapshot(&mut self, id: Digest, from: &str) {
        if !self.snapshots_seen.insert(id) {
            return;
        }
        let doc = self
            .store
            .path()
            .join("snapshots")
            .join(format!("{id}.json"));
        if doc.is_file() {
            self.docs.insert(id);
            // The canonical bytes of a v0.1 snapshot are an object too (absent in stores
            // written before they were kept).
            self.object(id, from, false);
            match self.store.read_snapshot(&id) {
                Ok((snap, _)) => {
                    for f in snap.files() {
                        let at = format!("{from}: snapshot {id} file {}", f.path);
                        self.object(f.blob, &at, true);
                    }
                }
                Err(e) => {
                    self.problems.insert(format!("{from}: snapshot {id}: {e}"));
                }
            }
        } else if self.store.has_object(&id) {
            self.tree(id, from);
        } else {
            self.problems
                .insert(format!("{from}: snapshot {id} is not in the store"));
        }
    }

    /// The v0.2 tree whose root node is `root`: every node, every blob. A problem names
    /// `from` (who refers to the tree), then the node and entry below it.
    pub(super) fn tree(&mut self, root: Digest, from: &str) {
        let mut stack = vec![(root, format!("tree {root}"))];
        while let Some((id, at)) = stack.pop() {
            if self.objects.contains(&id) && id != root {
                continue;
            }
            let node = self
                .store
                .read_object(&id)
                .map_err(|e| e.to_string())
                .and_then(|b| crate::tree::Node::parse(id, &b).map_err(|e| e.to_string()));
            let node = match node {
                Ok(n) => n,
                Err(e) => {
                    self.problems
                        .insert(format!("{from}: {at}: tree node {id}: {e}"));
                    continue;
                }
            };
            self.objects.insert(id);
            for f in &node.files {
                let at = format!("{from}: tree node {id} file {:?}", f.name);
                self.object(f.blob, &at, true);
            }
            for d in &node.directories {
                if !self.objects.contains(&d.node) {
                    stack.push((d.node, format!("tree node {id} directory {:?}", d.name)));
                }
            }
        }
    }

    pub(super) fn patches(&mut self, patches: &[PatchEntry], from: &str) {
        for (i, p) in patches.iter().enumerate() {
            let at = format!("{from}/patches/{i}");
            self.object(p.patch, &format!("{at}/patch"), true);
            self.snapshot(p.before_snapshot, &format!("{at}/before_snapshot"));
            self.snapshot(p.after_snapshot, &format!("{at}/after_snapshot"));
            if let Some(a) = p.acceptance {
                self.acceptance(a, &format!("{at}/acceptance"));
            }
        }
    }

    pub(super) fn verification(&mut self, v: Option<&Verification>, from: &str) {
        if let Some(v) = v {
            self.snapshot(v.snapshot, &format!("{from}/verification/snapshot"));
            self.acceptance(v.acceptance, &format!("{from}/verification/acceptance"));
        }
    }

    pub(super) fn snapshot_states(&mut self, states: &[SnapshotState], from: &str) {
        for (i, s) in states.iter().enumerate() {
            self.snapshot(s.identity, &format!("{from}/snapshots/{i}/identity"));
        }
    }

    /// An acceptance record: checked against its name, and the manifest blob it names kept.
    pub(super) fn acceptance(&mut self, d: Digest, from: &str) {
        if self.objects.contains(&d) {
            return;
        }
        if let Some(bytes) = self.checked_object(d, from)
            && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes)
            && let Some(m) = v
                .get("manifest")
                .and_then(|m| m.as_str())
                .and_then(|m| m.parse::<Digest>().ok())
        {
            self.object(m, &format!("{from} (acceptance {d}) manifest"), false);
        }
    }

    pub(super) fn session(
        &mut self,
        name: &str,
        doc: Option<&Session>,
        state: Option<&SessionState>,
    ) {
        if let Some(s) = doc {
            let from = format!("sessions/{name}.json");
            self.snapshot(s.base_snapshot, &format!("{from}/base_snapshot"));
            self.snapshot(s.current_snapshot, &format!("{from}/current_snapshot"));
            self.patches(&s.patches, &from);
            self.verification(s.verification.as_ref(), &from);
        }
        if let Some(st) = state {
            let from = format!("sessions/{name}.state");
            self.snapshot_states(&st.snapshots, &from);
            if let Some(m) = st.manifest_blob {
                self.object(m, &format!("{from}/manifest_blob"), true);
            }
            for (i, l) in st.logs.iter().enumerate() {
                self.object(l.stdout, &format!("{from}/logs/{i}/stdout"), true);
                self.object(l.stderr, &format!("{from}/logs/{i}/stderr"), true);
            }
            if let Some(saved) = &st.saved {
                if let Some(s) = saved.snapshot {
                    self.snapshot(s, &format!("{from}/saved/snapshot"));
                }
                for (i, f) in saved.files.iter().enumerate() {
                    self.object(f.blob, &format!("{from}/saved/files/{i}/blob"), true);
                }
            }
            for (i, r) in st.rebased.iter().enumerate() {
                let at = format!("{from}/rebased/{i}");
                self.snapshot(r.onto, &format!("{at}/onto"));
                self.snapshot(r.base, &format!("{at}/base"));
                self.patches(&r.patches, &at);
                self.snapshot_states(&r.snapshots, &at);
                self.verification(r.verification.as_ref(), &at);
            }
        }
    }
}

/// Reads a store JSON file Genesis wrote (strictly: a key twice is refused).
pub(super) fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    id: &str,
) -> Result<Option<T>, SessionError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                source,
            }
            .into());
        }
    };
    crate::json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| match e {
            crate::json::JsonError::Duplicate(source) => SessionError::DuplicateKey {
                id: id.to_owned(),
                path: path.to_path_buf(),
                source,
            },
            e => SessionError::Invalid {
                id: id.to_owned(),
                path: path.to_path_buf(),
                message: format!("{e}; nothing removed"),
            },
        })
}

/// Whether the object file at `path` starts with the bytes of a v0.2 tree node, or is a
/// packed one (only the first bytes are decoded, so a large blob costs one small read).
pub(super) fn looks_like_node(path: &Path) -> bool {
    const START: &[u8] = br#"{"directories":["#;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 4];
    if f.read_exact(&mut head).is_err() {
        return false;
    }
    let mut buf = vec![0u8; START.len()];
    if crate::store::packed::is_packed(&head) {
        // A packed object: its header says whether it is a node.
        let mut kind = [0u8; 2];
        return f.read_exact(&mut kind).is_ok()
            && crate::store::packed::is_packed_node(&[&head[..], &kind[..]].concat());
    }
    if head == crate::store::codec::ZSTD_MAGIC {
        let Ok(file) = std::fs::File::open(path) else {
            return false;
        };
        let Ok(mut dec) = zstd::stream::read::Decoder::new(file) else {
            return false;
        };
        if dec.read_exact(&mut buf).is_err() {
            return false;
        }
    } else {
        buf[..4].copy_from_slice(&head);
        if f.read_exact(&mut buf[4..]).is_err() {
            return false;
        }
    }
    buf == START
}
