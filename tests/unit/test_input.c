/* test_input.c: io/input.h, the two implementations of the input interface.
 *
 * Both give the file's bytes as one view, the same bytes; being told the reader
 * passed the end changes none of them (the fast one gives a mapped file's pages
 * back, and they come back the same); a directory is refused at open, a file
 * changed after it was opened is seen, and closing an input whose view went, or
 * never came, is fine.
 */
#define _GNU_SOURCE
#include "io/input.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE ((size_t)3 << 20) /* past INPUT_DROP_MIN: the fast one gives pages back */

static char *write_file(char **dir)
{
	*dir = make_tmpdir_for("input");
	char *path = path_in(*dir, "input.bin");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(fd >= 0);
	uint8_t *buf = malloc(SIZE);
	cr_assert(buf);
	for (size_t i = 0; i < SIZE; i++)
		buf[i] = (uint8_t)(i * 7 % 251);
	cr_assert(write(fd, buf, SIZE) == (ssize_t)SIZE);
	free(buf);
	close(fd);
	return path;
}

static bool same_bytes(const input *in)
{
	const uint8_t *v = input_view(in, 0, SIZE);
	for (size_t i = 0; i < SIZE; i++)
		if (v[i] != (uint8_t)(i * 7 % 251))
			return false;
	return true;
}

static void reads_the_file(input_config cfg, bool expect_mapped)
{
	char *dir, *path = write_file(&dir);
	input *in;
	osh_error err = {0};
	cr_assert_eq(input_open(&in, path, &cfg, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(in->size, SIZE);
	cr_assert_eq(in->methods->read(in, path, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(in->file_mapped, expect_mapped);
	cr_expect(same_bytes(in));
	cr_expect_eq(input_view(in, 1000, 10)[0], (uint8_t)(1000 * 7 % 251));
	for (size_t at = 0; at <= SIZE; at += 1 << 16)
		input_passed(in, at);
	input_passed(in, SIZE);
	cr_expect(same_bytes(in), "the bytes changed after the reader passed them");
	cr_expect_eq(input_unchanged(in, path, &err), OSH_OK);
	in->methods->drop(in);
	cr_expect_null(in->data);
	input_passed(in, SIZE); /* a view gone is told nothing */
	input_close(in);
	input_close(NULL);
	free(path);
	remove_dir(dir);
}

Test(input, plain_reads_into_memory_of_its_own)
{
	reads_the_file((input_config){.plain = true, .map_file = true}, false);
}

Test(input, fast_maps_the_file)
{
	reads_the_file((input_config){.map_file = true}, true);
}

Test(input, fast_copies_it_without_map_file)
{
	reads_the_file((input_config){0}, false);
}

Test(input, a_directory_is_refused_and_a_change_is_seen)
{
	char *dir, *path = write_file(&dir);
	input *in;
	osh_error err = {0};
	cr_expect_eq(input_open(&in, dir, &(input_config){0}, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "not a regular file"), "%s", err.message);
	cr_assert_eq(input_open(&in, path, &(input_config){.plain = true}, &err), OSH_OK);
	FILE *f = fopen(path, "ab");
	cr_assert(f);
	fputc('x', f);
	fclose(f);
	cr_expect_eq(input_unchanged(in, path, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "the input changed while it was read"), "%s", err.message);
	input_close(in); /* never read */
	free(path);
	remove_dir(dir);
}
