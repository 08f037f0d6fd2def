// Applies the server's diffs to the client's copy of a room: the twin of protocol/diff.py.
// An operation is ["s", path, value] (set; an empty path replaces the document; the index
// equal to a list's length appends) or ["d", path] (delete a map key, or cut a list to the
// index).  apply() changes the document in place and returns it (a root set replaces it).

class DiffError extends Error {}

function apply(doc, ops) {
  for (const op of ops) {
    if (!Array.isArray(op) || op.length < 2 || !Array.isArray(op[1])) {
      throw new DiffError(`malformed operation ${JSON.stringify(op)}`);
    }
    const [kind, path] = op;
    if (path.length === 0) {
      if (kind !== "s" || op.length !== 3) throw new DiffError("only a set may target the root");
      doc = op[2];
      continue;
    }
    const parent = walk(doc, path.slice(0, -1));
    const key = path[path.length - 1];
    if (kind === "s" && op.length === 3) {
      setValue(parent, key, op[2]);
    } else if (kind === "d" && op.length === 2) {
      deleteValue(parent, key);
    } else {
      throw new DiffError(`unknown operation ${JSON.stringify(op)}`);
    }
  }
  return doc;
}

function isMap(node) {
  return node !== null && typeof node === "object" && !Array.isArray(node);
}

function walk(doc, path) {
  let node = doc;
  for (const key of path) {
    if (isMap(node) && typeof key === "string" && Object.hasOwn(node, key)) {
      node = node[key];
    } else if (Array.isArray(node) && Number.isInteger(key) && key >= 0 && key < node.length) {
      node = node[key];
    } else {
      throw new DiffError(`path ${JSON.stringify(path)} does not fit the document`);
    }
  }
  return node;
}

function setValue(parent, key, value) {
  if (isMap(parent) && typeof key === "string") {
    parent[key] = value;
  } else if (Array.isArray(parent) && Number.isInteger(key) && key >= 0 && key <= parent.length) {
    parent[key] = value;
  } else {
    throw new DiffError(`cannot set ${JSON.stringify(key)}`);
  }
}

function deleteValue(parent, key) {
  if (isMap(parent) && typeof key === "string" && Object.hasOwn(parent, key)) {
    delete parent[key];
  } else if (Array.isArray(parent) && Number.isInteger(key) && key >= 0 && key <= parent.length) {
    parent.length = key;
  } else {
    throw new DiffError(`cannot delete ${JSON.stringify(key)}`);
  }
}

export { apply, DiffError };
