/**
 * A SQLite store's files kept private: the folders made for it 0700, the
 * database file made 0600 before SQLite opens it (SQLite gives its `-wal`,
 * `-shm` and `-journal` files the database file's mode, whatever the
 * umask), and an existing store that other users may read made private
 * when its owner opens it, or named in a warning when that cannot be done
 * (decision 085).
 *
 * Plain `node:fs` calls, no recursion handed to Node: `mkdirSync` with
 * `recursive: true` loops for ever under `/proc` (each `mkdir` there fails
 * ENOENT although its parent exists), blocking the event loop and so every
 * signal.
 *
 * @internal
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, type Stats, statSync } from "node:fs"
import { basename, dirname, join } from "node:path"

/** The files SQLite keeps for the database `file`: the file itself and its companions. */
export const storeFileNames = (file: string): ReadonlyArray<string> =>
  [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]

const privateDirMode = 0o700
const privateFileMode = 0o600

const statOrUndefined = (path: string, stat: (path: string) => Stats): Stats | undefined => {
  try {
    return stat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/**
 * Makes the missing folders of `dir`, each 0700 (chmod after `mkdir`: the
 * umask may take bits off the mode asked for, even the owner's). Walks up to
 * the nearest existing folder first and makes the rest one level at a time,
 * so a path that cannot be made fails with the system's own error at once.
 */
export const makePrivateDirs = (dir: string): void => {
  const missing: Array<string> = []
  let at = dir
  for (;;) {
    const stat = statOrUndefined(at, statSync)
    if (stat !== undefined) {
      if (!stat.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory: '${at}'`), { code: "ENOTDIR" })
      }
      break
    }
    missing.unshift(at)
    const parent = dirname(at)
    // The root always exists; a parent equal to its child means there is nothing left to walk.
    if (parent === at) break
    at = parent
  }
  for (const path of missing) {
    try {
      mkdirSync(path, { mode: privateDirMode })
    } catch (error) {
      // Another process made it meanwhile: fine, it is that process's to make private.
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && statSync(path).isDirectory()) continue
      throw error
    }
    chmodSync(path, privateDirMode)
  }
}

/**
 * Creates the database file empty and 0600 unless it exists (SQLite reads an
 * empty file as a new database). `O_EXCL`: when two processes create one
 * store at once, the one that loses finds the winner's file and leaves it be.
 */
const createPrivateFile = (file: string): void => {
  let fd: number
  try {
    fd = openSync(file, "wx", privateFileMode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return
    throw error
  }
  try {
    // The umask may have taken the owner's bits too (umask 0200).
    if ((fstatSync(fd).mode & 0o777) !== privateFileMode) fchmodSync(fd, privateFileMode)
  } finally {
    closeSync(fd)
  }
}

/**
 * Makes every existing file of the store that another user may read or
 * write 0600, when this process's user owns it. Returns the files it could
 * not make private (another user's, or a read-only file system), each with
 * its mode in octal: the caller warns about them.
 */
export const tightenStoreFiles = (file: string): ReadonlyArray<string> => {
  const uid = process.getuid?.()
  const left: Array<string> = []
  for (const path of storeFileNames(file)) {
    // lstat: a symbolic link's own mode means nothing, and what it points to is not ours to change.
    const stat = statOrUndefined(path, lstatSync)
    if (stat === undefined || !stat.isFile() || (stat.mode & 0o077) === 0) continue
    const mode = (stat.mode & 0o777).toString(8).padStart(4, "0")
    if (uid !== undefined && stat.uid !== uid) {
      left.push(`${basename(path)} ${mode}, owned by uid ${stat.uid}`)
      continue
    }
    try {
      chmodSync(path, privateFileMode)
    } catch (error) {
      left.push(`${basename(path)} ${mode}: ${(error as Error).message}`)
    }
  }
  return left
}

/**
 * Prepares the SQLite file `file` before SQLite opens it: its folders made
 * 0700, the file made 0600 when new, an existing store's files made private.
 * Returns the warning to give when some of them cannot be made private (one
 * line naming the store), or undefined. Throws the system's error when the
 * folder or the file cannot be made.
 */
export const prepareStoreFile = (file: string): string | undefined => {
  makePrivateDirs(dirname(file))
  createPrivateFile(file)
  return storeFilesWarning(file, tightenStoreFiles(file))
}

/** The one warning line for the files of the store `file` that stay readable by other users. */
export const storeFilesWarning = (file: string, left: ReadonlyArray<string>): string | undefined =>
  left.length === 0
    ? undefined
    : `the durable store ${file} can be read by other users and could not be made private ` +
      `(${left.join("; ")}): its owner can run chmod 600 ${join(dirname(file), basename(file))}*`
