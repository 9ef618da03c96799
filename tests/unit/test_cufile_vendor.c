/* The cuFile layer against the stand-in libcufile (tests/fakes/
 * fake_cufile.c): loading, absent and wrong libraries, compatibility mode
 * vs nvidia-fs, errors, and a write/read through cuFile checked byte for
 * byte. */
#include "helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "vendor/cufile/cufile.h"

static int use_fake(void **state)
{
	const char *lib = getenv("GPUFEED_FAKE_CUFILE");

	(void)state;
	/* The build under test's stand-in (tests/run.sh names it), else build/'s. */
	setenv("GPUFEED_CUFILE_LIBRARY", lib ? lib : "build/fakes/libcufile.so.0", 1);
	unsetenv("FAKE_CUFILE_SCENARIO");
	unsetenv("FAKE_CUFILE_LOG");
	gf_cufile_unload();
	return 0;
}

static void absent_and_wrong_library(void **state)
{
	const struct gf_cufile_ops *ops;
	char why[400];

	(void)state;
	setenv("GPUFEED_CUFILE_LIBRARY", "/nonexistent/libcufile.so.0", 1);
	assert_int_equal(gf_cufile_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_string_equal(gf_last_error(),
			    "cuFile not available: GPUFEED_CUFILE_LIBRARY=/nonexistent/libcufile.so.0 not found");
	gf_cufile_unload();
	setenv("GPUFEED_CUFILE_LIBRARY", "libm.so.6", 1);
	assert_int_equal(gf_cufile_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_string_equal(why, "GPUFEED_CUFILE_LIBRARY=libm.so.6 lacks cuFileDriverOpen (not a cuFile library?)");
}

static void compat_mode_and_errors(void **state)
{
	const struct gf_cufile_ops *ops;
	char why[400];
	struct gf_cufile_error e = { GF_CU_FILE_CUDA_DRIVER_ERROR, 2 };

	(void)state;
	assert_int_equal(gf_cufile_load(&ops, why, sizeof(why)), 0);
	assert_non_null(ops->driver_close);	/* found as cuFileDriverClose_v2 */
	assert_null(ops->get_version);		/* optional; the fake lacks it */
	assert_true(gf_cufile_compat_mode(ops));
	setenv("FAKE_CUFILE_SCENARIO", "nvfs", 1);
	assert_false(gf_cufile_compat_mode(ops));
	setenv("FAKE_CUFILE_SCENARIO", "no_driver", 1);
	assert_int_equal(gf_cufile_check(ops->driver_open(), "cuFileDriverOpen"), -ENODEV);
	assert_string_equal(gf_last_error(), "cuFileDriverOpen: CU_FILE_DRIVER_NOT_INITIALIZED (5001)");
	assert_int_equal(gf_cufile_check(e, "cuFileRead"), -EIO);
	assert_string_equal(gf_last_error(), "cuFileRead: CU_FILE_CUDA_DRIVER_ERROR (CUresult 2)");
	assert_int_equal(gf_cufile_io_error(-GF_CU_FILE_HANDLE_NOT_REGISTERED, 0, "cuFileRead"), -EINVAL);
	assert_int_equal(gf_cufile_io_error(-1, EIO, "cuFileRead x"), -EIO);
	assert_int_equal(gf_cufile_io_error(-EBADF, 0, "cuFileRead y"), -EBADF);
}

static void write_then_read(void **state)
{
	const struct gf_cufile_ops *ops;
	struct gf_cufile_descr d = { .type = GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	gf_cufile_handle h = NULL;
	char why[400], *dir = t_mkdtemp(), path[512];
	unsigned char out[8192], in[8192];

	(void)state;
	snprintf(path, sizeof(path), "%s/f", dir);
	d.handle.fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(d.handle.fd >= 0);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 13);
	assert_int_equal(gf_cufile_load(&ops, why, sizeof(why)), 0);
	assert_int_equal(gf_cufile_check(ops->handle_register(&h, &d), "cuFileHandleRegister"), -ENODEV);
	assert_int_equal(gf_cufile_check(ops->driver_open(), "cuFileDriverOpen"), 0);
	assert_int_equal(gf_cufile_check(ops->handle_register(&h, &d), "cuFileHandleRegister"), 0);
	assert_int_equal(gf_cufile_check(ops->buf_register(in, sizeof(in), 0), "cuFileBufRegister"), 0);
	assert_int_equal(ops->write(h, out, sizeof(out), 0, 0), (ssize_t)sizeof(out));
	memset(in, 0, sizeof(in));
	assert_int_equal(ops->read(h, in, 4096, 4096, 4096), 4096);	/* second half into second half */
	assert_memory_equal(in + 4096, out + 4096, 4096);
	assert_int_equal(in[0], 0);
	assert_int_equal(gf_cufile_check(ops->buf_deregister(in), "cuFileBufDeregister"), 0);
	ops->handle_deregister(h);
	assert_int_equal(gf_cufile_check(ops->driver_close(), "cuFileDriverClose"), 0);
	close(d.handle.fd);
	t_rmtree(dir);
	free(dir);
}

/* The stand-in's batch API, as tests/unit/test_xfer.c relies on it: a
 * handle holds one wave at a time, a wave is read only as GetStatus
 * collects it (two entries a call), and FAKE_CUFILE_LOG counts the handles,
 * the waves in flight at once and the entries a Destroy dropped. */
static void batch_waves(void **state)
{
	const struct gf_cufile_ops *ops;
	struct gf_cufile_descr d = { .type = GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	struct gf_cufile_io_params io[2][4];
	struct gf_cufile_io_event ev[4];
	gf_cufile_handle h = NULL;
	gf_cufile_batch b[2];
	char why[400], *dir = t_mkdtemp(), path[512], logf[512], line[200] = "";
	unsigned char out[8192], in[8192] = { 0 }, zero[8192] = { 0 };
	unsigned got = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(logf, sizeof(logf), "%s/log", dir);
	setenv("FAKE_CUFILE_LOG", logf, 1);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 7 + (i >> 8));
	d.handle.fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(d.handle.fd >= 0);
	assert_int_equal(write(d.handle.fd, out, sizeof(out)), (ssize_t)sizeof(out));
	assert_int_equal(gf_cufile_load(&ops, why, sizeof(why)), 0);
	assert_non_null(ops->batch_setup);
	assert_int_equal(gf_cufile_check(ops->driver_open(), "cuFileDriverOpen"), 0);
	assert_int_equal(gf_cufile_check(ops->handle_register(&h, &d), "cuFileHandleRegister"), 0);
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(gf_cufile_check(ops->batch_setup(&b[k], 4), "cuFileBatchIOSetUp"), 0);
		for (unsigned i = 0; i < 4; i++) {
			io[k][i] = (struct gf_cufile_io_params){ .mode = GF_CUFILE_BATCH, .fh = h,
								 .opcode = GF_CUFILE_READ, .cookie = &io[k][i] };
			io[k][i].u.batch.dev_ptr_base = in;
			io[k][i].u.batch.file_offset = io[k][i].u.batch.dev_ptr_offset = (off_t)(k * 4 + i) * 1024;
			io[k][i].u.batch.size = 1024;
		}
		assert_int_equal(gf_cufile_check(ops->batch_submit(b[k], 4, io[k], 0), "cuFileBatchIOSubmit"), 0);
	}
	/* Busy until collected; nothing read yet. */
	assert_int_equal(gf_cufile_check(ops->batch_submit(b[0], 4, io[0], 0), "cuFileBatchIOSubmit"), -EINVAL);
	assert_memory_equal(in, zero, sizeof(in));
	while (got < 4) {
		struct timespec t = { 1, 0 };
		unsigned k = 4 - got;

		assert_int_equal(gf_cufile_check(ops->batch_get_status(b[0], 1, &k, ev + got, &t), "GetStatus"), 0);
		assert_int_equal(k, 2);
		got += k;
	}
	for (unsigned i = 0; i < 4; i++) {
		assert_ptr_equal(ev[i].cookie, &io[0][i]);
		assert_int_equal(ev[i].status, GF_CUFILE_COMPLETE);
		assert_int_equal(ev[i].ret, 1024);
	}
	assert_memory_equal(in, out, 4096);
	assert_memory_equal(in + 4096, zero, 4096);
	/* The second wave is dropped by Destroy, unread. */
	ops->batch_destroy(b[1]);
	ops->batch_destroy(b[0]);
	assert_memory_equal(in + 4096, zero, 4096);
	ops->handle_deregister(h);
	assert_int_equal(gf_cufile_check(ops->driver_close(), "cuFileDriverClose"), 0);
	f = fopen(logf, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "batch: handles 2 refused 0 waves 2 in_flight 2 destroyed_pending 4 busy_submits 1\n");
	unsetenv("FAKE_CUFILE_LOG");
	close(d.handle.fd);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(absent_and_wrong_library, use_fake),
		cmocka_unit_test_setup(compat_mode_and_errors, use_fake),
		cmocka_unit_test_setup(write_then_read, use_fake),
		cmocka_unit_test_setup(batch_waves, use_fake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
