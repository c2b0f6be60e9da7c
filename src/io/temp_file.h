/* temp_file.h: the temporary file of a write to BASE, ".BASE.osh-XXXXXXXX.tmp" beside
 * it (X: a hexadecimal digit), locked by its writer from its creation to its rename
 * or removal, and the sweep that removes every such file no live writer holds: what
 * writers killed by SIGKILL (or a crash) left. See temp_file.c.
 */
#ifndef OSH_IO_TEMP_FILE_H
#define OSH_IO_TEMP_FILE_H

/* Removes from directory dir every file of the pattern that no live writer holds
 * locked. Best effort: what cannot be read or removed stays. */
void temp_sweep(const char *dir);

/* Creates and locks a new temporary file for a write to dir/base (exclusively, mode
 * 0666 less the umask, never through a link): its descriptor, the path malloc'd into
 * *path; or minus an errno. */
int temp_create(const char *dir, const char *base, char **path);

#endif
