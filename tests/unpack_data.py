#!/usr/bin/env python3
"""Unpack one of tests/data's archives into the build tree, once, sparsely.

    unpack_data.py ARCHIVE DEST STAMP

The real networks' weights are zeroed (their README), so the archive of a few
hundred KB unpacks to 1.5 GB; `make test` and `make test-asan` each unpack it,
and CI machines have run out of disk doing so with tar. Here every run of zero
bytes a file-system block long becomes a hole: the files read the same (same
size, same bytes, mmap as before) and take a few MB of disk.

DEST/STAMP records a finished unpack, so a second run does nothing; an unpack
that failed half way leaves no stamp and is redone from scratch.
"""
import lzma
import os
import sys
import tarfile

HOLE = 64 * 1024  # a run of zeros this long, block-aligned in the file, is skipped
ZEROS = bytes(HOLE)


def safe_name(name):
    parts = name.split("/")
    return not (name.startswith("/") or ".." in parts)


def write_sparse(src, path, size):
    with open(path, "wb") as out:
        left = size
        while left > 0:
            chunk = src.read(min(HOLE, left))
            if not chunk:
                raise OSError(f"{path}: archive member ends early")
            left -= len(chunk)
            if len(chunk) == HOLE and chunk == ZEROS:
                out.seek(HOLE, os.SEEK_CUR)
            else:
                out.write(chunk)
        out.truncate(size)  # a trailing hole still counts in the size


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: unpack_data.py ARCHIVE DEST STAMP")
    archive, dest, stamp = sys.argv[1:]
    stamp_path = os.path.join(dest, stamp)
    if os.path.exists(stamp_path):
        return
    os.makedirs(dest, exist_ok=True)
    # lzma.open bounds each decompressed piece; tarfile's own "r|xz" inflates a
    # whole compressed block of zeros at once and copies what is left of it on
    # every read, which takes minutes on these archives.
    with lzma.open(archive) as xz, tarfile.open(fileobj=xz, mode="r|") as tar:
        for m in tar:
            if not safe_name(m.name):
                sys.exit(f"{archive}: member '{m.name}' leaves the destination")
            path = os.path.join(dest, m.name)
            if m.isdir():
                os.makedirs(path, exist_ok=True)
            elif m.isfile():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                if os.path.lexists(path):
                    os.unlink(path)
                write_sparse(tar.extractfile(m), path, m.size)
            # links and devices: the data archives hold none, and none is followed
    with open(stamp_path, "w"):
        pass


if __name__ == "__main__":
    main()
