/* gpufeed verify (src/verify/): fake /proc/PID trees planted in a copy of
 * the hgx-h100-8gpu fixture (GPU0-3 on node 0, CPUs 0-55,112-167; GPU4-7
 * on node 1, CPUs 56-111,168-223; GPU2 has minor 3 and GPU3 minor 2), the
 * one-node h200x4-vm, and this process live. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gpufeed/verify.h>
#include <gpufeed/error.h>

#include "helpers.h"
#include "verify/verify_internal.h"

static char *hgx, *vm;		/* private copies, made once */

static int setup(void **state)
{
	(void)state;
	hgx = t_mkdtemp();
	vm = t_mkdtemp();
	t_copytree(t_fixture_root("hgx-h100-8gpu"), hgx);
	t_copytree(t_fixture_root("h200x4-vm"), vm);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(hgx);
	t_rmtree(vm);
	free(hgx);
	free(vm);
	return 0;
}

/* A thread of a fake process: its comm and the CPU it last ran on. */
struct fthread {
	int tid;
	const char *comm;
	int cpu;
};

/* proc(5)'s stat: pid (comm) then fields 3-52, field 39 the CPU. */
static void put_stat(const char *root, int pid, const struct fthread *t)
{
	char rel[128], line[512];
	int len = snprintf(line, sizeof(line), "%d (%s)", t->tid, t->comm);

	for (int field = 3; field <= 52; field++)
		len += snprintf(line + len, sizeof(line) - (size_t)len, field == 3 ? " S" : field == 39 ? " %d" : " 0",
				t->cpu);
	snprintf(line + len, sizeof(line) - (size_t)len, "\n");
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, t->tid);
	t_write(root, rel, line);
}

/* A process: its allowed CPUs, threads, numa_maps, open GPU device nodes
 * (NULL-terminated) and environment (NULL: none written). */
struct fproc {
	int pid;
	const char *cpus, *mems;
	struct fthread threads[8];
	const char *numa_maps;
	const char *fds[4];
	const char *cuda_visible;
};

static void put_proc(const char *root, const struct fproc *p)
{
	char rel[128], text[512];

	snprintf(rel, sizeof(rel), "proc/%d/status", p->pid);
	snprintf(text, sizeof(text), "Name:\ttrain\nPid:\t%d\nCpus_allowed_list:\t%s\nMems_allowed_list:\t%s\n", p->pid,
		 p->cpus, p->mems ? p->mems : "0-1");
	t_write(root, rel, text);
	for (int i = 0; i < 8 && p->threads[i].tid; i++)
		put_stat(root, p->pid, &p->threads[i]);
	snprintf(rel, sizeof(rel), "proc/%d/numa_maps", p->pid);
	t_write(root, rel, p->numa_maps ? p->numa_maps : "");
	snprintf(rel, sizeof(rel), "proc/%d/fd/0", p->pid);
	t_symlink(root, rel, "/dev/null");
	for (int i = 0; i < 4 && p->fds[i]; i++) {
		snprintf(rel, sizeof(rel), "proc/%d/fd/%d", p->pid, 10 + i);
		t_symlink(root, rel, p->fds[i]);
	}
	if (p->cuda_visible) {
		int n = snprintf(text, sizeof(text), "PATH=/usr/bin%cCUDA_VISIBLE_DEVICES=%s%cHOME=/root%c", 0,
				 p->cuda_visible, 0, 0);

		snprintf(rel, sizeof(rel), "proc/%d/environ", p->pid);
		t_write_bytes(root, rel, text, (size_t)n);
	}
}

static struct gf_verify *verify(const char *root, int pid, const char *gpus, int want)
{
	struct gf_verify_options o = GF_VERIFY_OPTS_INIT;
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_verify *v = NULL;

	o.proc_root = root;
	to.root = root;
	to.nvml = GF_NVML_OFF;
	o.machine = &to;
	o.gpus = gpus;
	int ret = gf_verify_run(&o, pid, &v);

	if (ret != want)
		fail_msg("gf_verify_run(%d): %d, want %d: %s", pid, ret, want, gf_last_error());
	return v;
}

static const struct gf_finding *finding(const struct gf_verify *v, const char *id)
{
	for (int i = 0; i < v->nfindings; i++)
		if (!strcmp(v->findings[i].id, id))
			return &v->findings[i];
	return NULL;
}

/* Node 0 anonymous memory under bind:0, and a shared library on node 1
 * that is not the process's own (file-backed: shown, not judged). */
#define MAPS_NODE0 \
	"7f0000000000 bind:0 anon=1000 dirty=1000 N0=1000 kernelpagesize_kB=4\n" \
	"7f1000000000 bind:0 heap anon=24 dirty=24 N0=24 kernelpagesize_kB=4\n" \
	"7f2000000000 bind:0 file=/usr/lib/libc.so.6 mapped=400 mapmax=90 N1=400 kernelpagesize_kB=4\n"

/* GPU3 (minor 2, node 0) open, every CPU and page on node 0: clean. */
static void bound_right(void **state)
{
	struct fproc p = { .pid = 5000, .cpus = "0-55,112-167", .threads = { { 5000, "train", 3 }, { 5001, "pt_data", 120 } },
			   .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidiactl", "/dev/nvidia2", "/dev/nvidia-uvm" },
			   .cuda_visible = "3" };
	struct gf_verify *v;

	(void)state;
	put_proc(hgx, &p);
	v = verify(hgx, 5000, NULL, 0);
	assert_int_equal(v->nfindings, 0);
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->topo->gpus[v->gpus[0].gpu].index, 3);
	assert_int_equal(v->gpus[0].source, GF_VERIFY_GPU_OPEN);
	assert_true(v->gpus[0].open);
	assert_int_equal(v->gpus[0].visible, 1);
	assert_int_equal(v->nthreads, 2);
	assert_int_equal(v->threads[1].cpu, 120);
	assert_int_equal(v->threads[1].node, 0);
	assert_string_equal(v->policy, "bind:0");
	assert_int_equal(v->private_bytes, 1024ull * 4096);
	assert_int_equal(v->bytes, 1424ull * 4096);
	assert_int_equal(v->nnodes, 2);	/* node 1 holds libc's pages only */
	assert_int_equal(v->nodes[1].private_bytes, 0);
	assert_true(v->off_node_pct == 0);
	gf_verify_free(v);
}

static void threads_on_node1(void **state)
{
	struct fproc p = { .pid = 5010, .cpus = "0-223",
			   .threads = { { 5010, "train", 3 }, { 5011, "w1", 60 }, { 5012, "w2", 170 } },
			   .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidia2" } };
	const struct gf_finding *f;
	struct gf_verify *v;

	(void)state;
	put_proc(hgx, &p);
	v = verify(hgx, 5010, NULL, 0);
	assert_non_null(f = finding(v, "verify.threads-remote"));
	assert_int_equal(f->severity, GF_SEV_WARN);
	assert_non_null(strstr(f->message, "2 of 3 threads"));
	assert_non_null(strstr(f->message, "TIDs 5011,5012"));
	assert_non_null(f = finding(v, "verify.cpus-allowed"));
	assert_non_null(strstr(f->message, "56-111,168-223"));
	assert_int_equal(v->nodes[1].threads, 2);
	assert_false(v->nodes[1].local);
	assert_int_equal(gf_verify_finding_count(v, GF_SEV_WARN), 2);
	gf_verify_free(v);
}

static void pages_on_node1(void **state)
{
	struct fproc p = { .pid = 5020, .cpus = "0-55", .threads = { { 5020, "train", 3 } },
			   .numa_maps = "7f0000000000 default anon=1000 N0=300 N1=700 kernelpagesize_kB=4\n"
					"7f2000000000 default stack anon=2 N0=0 kernelpagesize_kB=4\n",
			   .fds = { "/dev/nvidia2" } };
	const struct gf_finding *f;
	struct gf_verify *v;

	(void)state;
	put_proc(hgx, &p);
	v = verify(hgx, 5020, NULL, 0);
	assert_non_null(f = finding(v, "verify.pages-remote"));
	assert_int_equal(f->severity, GF_SEV_ERROR);
	assert_non_null(strstr(f->message, "70.0%"));
	assert_true(v->off_node_pct > 69.9 && v->off_node_pct < 70.1);
	assert_non_null(finding(v, "verify.mempolicy-default"));
	gf_verify_free(v);

	/* 20% off: a warning; under the threshold asked: nothing. */
	put_proc(hgx, &(struct fproc){ .pid = 5021, .cpus = "0-55", .threads = { { 5021, "t", 3 } },
				       .numa_maps = "7f00 bind:0 anon=10 N0=800 N1=200 kernelpagesize_kB=4\n",
				       .fds = { "/dev/nvidia2" } });
	v = verify(hgx, 5021, NULL, 0);
	assert_int_equal(finding(v, "verify.pages-remote")->severity, GF_SEV_WARN);
	gf_verify_free(v);
	{
		struct gf_verify_options o = GF_VERIFY_OPTS_INIT;
		struct gf_topo_options to = GF_TOPO_OPTS_INIT;

		o.proc_root = to.root = hgx;
		to.nvml = GF_NVML_OFF;
		o.machine = &to;
		o.max_off_node_pct = 25;
		assert_int_equal(gf_verify_run(&o, 5021, &v), 0);
		assert_null(finding(v, "verify.pages-remote"));
		assert_int_equal(v->nfindings, 0);
		gf_verify_free(v);
	}
}

static void policy_off_node(void **state)
{
	struct gf_verify *v;

	(void)state;
	put_proc(hgx, &(struct fproc){ .pid = 5030, .cpus = "0-55", .threads = { { 5030, "t", 3 } },
				       .numa_maps = "7f00 interleave:0-1 anon=10 N0=10 kernelpagesize_kB=4\n",
				       .fds = { "/dev/nvidia2" } });
	v = verify(hgx, 5030, NULL, 0);
	assert_non_null(finding(v, "verify.mempolicy-remote"));
	gf_verify_free(v);
}

static void comm_with_parens(void **state)
{
	struct gf_verify *v;
	char comm[64];
	int cpu = -7;

	(void)state;
	assert_int_equal(gf_proc_parse_stat("42 (a) (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 "
					   "25 26 27 28 29 30 31 32 33 34 35 36 37 38",
					   comm, sizeof(comm), &cpu),
			 0);
	assert_string_equal(comm, "a) (b");
	assert_int_equal(cpu, 36);	/* S is field 3, so "36" is field 39 */
	assert_int_equal(gf_proc_parse_stat("42 (x S 1", comm, sizeof(comm), &cpu), -EBADMSG);
	assert_int_equal(gf_proc_parse_stat("42 (x) S 1 2", comm, sizeof(comm), &cpu), -EBADMSG);

	put_proc(hgx, &(struct fproc){ .pid = 5040, .cpus = "0-55",
				       .threads = { { 5040, "a) (b", 60 }, { 5041, ") 99 (", 4 } },
				       .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidia2" } });
	v = verify(hgx, 5040, NULL, 0);
	assert_string_equal(v->threads[0].comm, "a) (b");
	assert_int_equal(v->threads[0].cpu, 60);
	assert_string_equal(v->threads[1].comm, ") 99 (");
	assert_int_equal(v->threads[1].cpu, 4);
	assert_non_null(strstr(finding(v, "verify.threads-remote")->message, "1 of 2 threads"));
	gf_verify_free(v);
}

/* GPU5 open but CUDA_VISIBLE_DEVICES names GPU3 only. */
static void open_not_visible(void **state)
{
	const char *uuid3 = "GPU-fb851501-0645-7d4e-2b26-f79a09da85a9";
	const struct gf_finding *f;
	struct gf_verify *v;
	char cvd[128];

	(void)state;
	snprintf(cvd, sizeof(cvd), "%s", uuid3);
	put_proc(hgx, &(struct fproc){ .pid = 5050, .cpus = "0-55", .threads = { { 5050, "t", 3 } },
				       .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidia2", "/dev/nvidia5" },
				       .cuda_visible = cvd });
	v = verify(hgx, 5050, NULL, 0);
	/* GPU3 is open and visible: GPU5 is NVML's, said but not compared. */
	assert_non_null(f = finding(v, "verify.gpu-not-visible"));
	assert_int_equal(f->severity, GF_SEV_INFO);
	assert_non_null(strstr(f->message, "GPU5 (/dev/nvidia5)"));
	assert_null(finding(v, "verify.gpus-split"));
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->topo->gpus[v->gpus[0].gpu].index, 3);
	assert_int_equal(gf_verify_finding_count(v, GF_SEV_WARN), 0);
	gf_verify_free(v);

	/* Only GPU5 open, GPU3 visible: compared with GPU5, and a warning. */
	put_proc(hgx, &(struct fproc){ .pid = 5052, .cpus = "56-111", .threads = { { 5052, "t", 60 } },
				       .numa_maps = "7f00 bind:1 anon=10 N1=10 kernelpagesize_kB=4\n",
				       .fds = { "/dev/nvidia5" }, .cuda_visible = cvd });
	v = verify(hgx, 5052, NULL, 0);
	assert_int_equal(finding(v, "verify.gpu-not-visible")->severity, GF_SEV_WARN);
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->topo->gpus[v->gpus[0].gpu].index, 5);
	assert_int_equal(gf_verify_finding_count(v, GF_SEV_WARN), 1);
	gf_verify_free(v);

	/* None open: CUDA_VISIBLE_DEVICES names the GPUs compared with. */
	put_proc(hgx, &(struct fproc){ .pid = 5051, .cpus = "56-111", .threads = { { 5051, "t", 60 } },
				       .numa_maps = MAPS_NODE0, .cuda_visible = "2,MIG-nope" });
	v = verify(hgx, 5051, NULL, 0);
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->gpus[0].source, GF_VERIFY_GPU_VISIBLE);
	assert_int_equal(v->topo->gpus[v->gpus[0].gpu].index, 2);
	assert_non_null(finding(v, "verify.visible-unknown"));
	assert_non_null(finding(v, "verify.cpus-remote"));
	gf_verify_free(v);
}

/* A thread listed in task/ whose stat is gone: skipped, counted. */
static void thread_vanished(void **state)
{
	struct gf_verify *v;

	(void)state;
	put_proc(hgx, &(struct fproc){ .pid = 5060, .cpus = "0-55", .threads = { { 5060, "t", 3 } },
				       .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidia2" } });
	t_write(hgx, "proc/5060/task/5061/comm", "gone\n");
	v = verify(hgx, 5060, NULL, 0);
	assert_int_equal(v->nthreads, 1);
	assert_int_equal(v->threads_vanished, 1);
	assert_int_equal(v->nfindings, 0);
	gf_verify_free(v);
}

static void missing_and_asked(void **state)
{
	struct gf_verify *v;

	(void)state;
	v = verify(hgx, 4999, NULL, -ESRCH);
	assert_null(v);
	assert_non_null(strstr(gf_last_error(), "4999: no such process"));
	assert_non_null(strstr(gf_last_error(), "--model DIR"));

	/* --gpu overrides the open GPU. */
	put_proc(hgx, &(struct fproc){ .pid = 5070, .cpus = "0-55", .threads = { { 5070, "t", 3 } },
				       .numa_maps = MAPS_NODE0, .fds = { "/dev/nvidia2" } });
	v = verify(hgx, 5070, "4", 0);
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->gpus[0].source, GF_VERIFY_GPU_ASKED);
	assert_non_null(finding(v, "verify.cpus-remote"));
	assert_non_null(finding(v, "verify.mempolicy-remote"));
	gf_verify_free(v);
	v = verify(hgx, 5070, "99", -EDOM);
	assert_non_null(strstr(gf_last_error(), "'99'"));

	/* Nothing open, no environment: no GPU to compare with. */
	put_proc(hgx, &(struct fproc){ .pid = 5071, .cpus = "0-223", .threads = { { 5071, "t", 100 } },
				       .numa_maps = MAPS_NODE0 });
	v = verify(hgx, 5071, NULL, 0);
	assert_true(gf_verify_no_gpu(v));
	assert_non_null(finding(v, "verify.no-gpu"));
	assert_int_equal(gf_verify_finding_count(v, GF_SEV_WARN), 0);
	gf_verify_free(v);
}

/* A kernel thread (Kthread: 1) or a zombie has no memory map to verify:
 * said as such, not as "no such process" (a kernel thread's environ is
 * ESRCH, which read as absent). */
static void kernel_thread_and_zombie(void **state)
{
	struct gf_verify *v;

	(void)state;
	t_write(hgx, "proc/12/status", "Name:\tkworker/0:1-events\nState:\tI (idle)\nPid:\t12\n"
				       "Cpus_allowed_list:\t0\nMems_allowed_list:\t0-1\nKthread:\t1\n");
	v = verify(hgx, 12, NULL, -EINVAL);
	assert_null(v);
	if (!strstr(gf_last_error(), "12 (kworker/0:1-events) is a kernel thread") ||
	    strstr(gf_last_error(), "no such process"))
		fail_msg("%s", gf_last_error());
	t_write(hgx, "proc/13/status", "Name:\ttrain\nState:\tZ (zombie)\nPid:\t13\n"
				       "Cpus_allowed_list:\t0-223\nMems_allowed_list:\t0-1\nKthread:\t0\n");
	v = verify(hgx, 13, NULL, -ESRCH);
	assert_null(v);
	assert_non_null(strstr(gf_last_error(), "13 (train) has exited"));
}

/* EACCES on a process's files says who may read them, and never "needs
 * root" to root (whom the ptrace access check refused anyway). */
static void denied_says_why(void **state)
{
	char buf[512];

	(void)state;
	gf_proc_why_denied(0, 0, buf, sizeof(buf));
	if (strstr(buf, "needs root") || !strstr(buf, "even as root") || !strstr(buf, "ptrace access"))
		fail_msg("root: %s", buf);
	gf_proc_why_denied(1000, 0, buf, sizeof(buf));
	if (!strstr(buf, "runs as uid 0") || !strstr(buf, "needs root or the same user"))
		fail_msg("another user's: %s", buf);
	gf_proc_why_denied(1000, 1000, buf, sizeof(buf));
	if (strstr(buf, "needs root") || !strstr(buf, "not dumpable"))
		fail_msg("one's own: %s", buf);
}

/* A MIG capability resolves to its GPU through the driver's table. */
static void mig_cap(void **state)
{
	struct gf_verify *v;

	(void)state;
	t_write(hgx, "proc/driver/nvidia-caps/mig-minors",
		"config 1\nmonitor 2\ngpu2/gi1/access 12\ngpu2/gi1/ci0/access 13\n");
	put_proc(hgx, &(struct fproc){ .pid = 5080, .cpus = "0-55", .threads = { { 5080, "t", 3 } },
				       .numa_maps = MAPS_NODE0,
				       .fds = { "/dev/nvidia-caps/nvidia-cap13", "/dev/nvidia-caps/nvidia-cap1" } });
	v = verify(hgx, 5080, NULL, 0);
	assert_int_equal(v->ngpus, 1);
	assert_int_equal(v->topo->gpus[v->gpus[0].gpu].index, 3);
	assert_int_equal(v->gpus[0].mig_gi, 1);
	assert_int_equal(v->gpus[0].mig_ci, 0);
	gf_verify_free(v);
}

static void single_node(void **state)
{
	struct gf_verify *v;

	(void)state;
	put_proc(vm, &(struct fproc){ .pid = 6000, .cpus = "0-1", .mems = "0", .threads = { { 6000, "t", 1 } },
				      .numa_maps = "7f00 default anon=5 N0=5 kernelpagesize_kB=4\n",
				      .fds = { "/dev/nvidia0" } });
	v = verify(vm, 6000, NULL, 0);
	assert_true(v->single_node);
	assert_int_equal(v->nfindings, 1);
	assert_string_equal(v->findings[0].id, "verify.single-node");
	gf_verify_free(v);
}

static void maps_lines(void **state)
{
	unsigned long long bytes[4] = { 0 };
	struct gf_proc_maps_line l;

	(void)state;
	assert_int_equal(gf_proc_parse_maps_line("7f00 prefer (many):0-1 anon=3 N0=1 N1=2 kernelpagesize_kB=4", &l,
						bytes, 4),
			 0);
	assert_string_equal(l.policy, "prefer (many):0-1");
	assert_int_equal(bytes[1], 8192);
	assert_int_equal(gf_proc_parse_maps_line("7f00 bind=static:1 file=/a b/c.so huge N1=2 N7=1 kernelpagesize_kB=2048",
						&l, bytes, 4),
			 0);
	assert_true(l.file);
	assert_string_equal(l.policy, "bind=static:1");
	assert_int_equal(bytes[1], 8192 + 2ull * 2048 * 1024);	/* N7 is past nmax: not counted there */
	assert_int_equal(l.bytes, 3ull * 2048 * 1024);
	assert_int_equal(gf_proc_parse_maps_line("garbage", &l, bytes, 4), -EBADMSG);
	assert_int_equal(gf_proc_nvidia_minor("/dev/nvidia12"), 12);
	assert_int_equal(gf_proc_nvidia_minor("/dev/nvidiactl"), -1);
	assert_int_equal(gf_proc_nvidia_minor("/dev/nvidia-uvm"), -1);
	assert_int_equal(gf_proc_nvidia_minor("/dev/nvidia-caps/nvidia-cap7"), GF_PROC_CAP_BASE + 7);
	assert_int_equal(gf_proc_nvidia_minor("/dev/nvidia0x1"), -1);
}

/* This process, live, with this machine as the model. */
static void live_self(void **state)
{
	struct gf_verify_options o = GF_VERIFY_OPTS_INIT;
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_verify *v;
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	to.nvml = GF_NVML_OFF;
	o.machine = &to;
	assert_int_equal(gf_verify_run(&o, 0, &v), 0);
	assert_int_equal(v->pid, getpid());
	assert_true(v->nthreads >= 1);
	assert_true(v->threads[0].cpu >= 0);
	assert_true(gf_cpuset_count(&v->cpus_allowed) >= 1);
	assert_true(v->numa_maps_known ? v->bytes > 0 : v->bytes == 0);
	assert_non_null(f = open_memstream(&text, &len));
	assert_int_equal(gf_verify_write_json(v, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"schema\": \"gpufeed-verify/1\""));
	free(text);
	gf_verify_free(v);
	assert_int_equal(gf_verify_run(&o, getpid(), &v), 0);
	assert_int_equal(v->pid, getpid());
	gf_verify_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bound_right),	    cmocka_unit_test(threads_on_node1), cmocka_unit_test(pages_on_node1),
		cmocka_unit_test(policy_off_node),  cmocka_unit_test(comm_with_parens), cmocka_unit_test(open_not_visible),
		cmocka_unit_test(thread_vanished),  cmocka_unit_test(missing_and_asked), cmocka_unit_test(mig_cap),
		cmocka_unit_test(single_node),	    cmocka_unit_test(maps_lines),	cmocka_unit_test(live_self),
		cmocka_unit_test(kernel_thread_and_zombie), cmocka_unit_test(denied_says_why),
	};

	return cmocka_run_group_tests_name("verify", tests, setup, teardown);
}
