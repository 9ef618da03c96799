/* gf_coll_world_from_env: each launcher's variables, which launcher wins
 * when several are set, and errors that name the variable. */
#include "helpers.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "coll/world.h"

static const char *const vars[] = {
	"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "TORCHELASTIC_USE_AGENT_STORE",
	"MASTER_ADDR", "MASTER_PORT", "GPUFEED_COLL_PORT",
	"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", "SLURM_STEP_TASKS_PER_NODE",
	"SLURM_STEP_NUM_NODES", "SLURM_NODEID",
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
	"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
};

static int clear(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	return 0;
}

static void torch(const char *rank, const char *world, const char *lrank, const char *lworld)
{
	setenv("RANK", rank, 1);
	setenv("WORLD_SIZE", world, 1);
	setenv("LOCAL_RANK", lrank, 1);
	setenv("LOCAL_WORLD_SIZE", lworld, 1);
}

static void ompi(const char *rank, const char *world, const char *lrank, const char *lworld)
{
	setenv("OMPI_COMM_WORLD_RANK", rank, 1);
	setenv("OMPI_COMM_WORLD_SIZE", world, 1);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", lrank, 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", lworld, 1);
}

static void slurm_step(const char *rank, const char *ntasks, const char *localid, const char *nodeid,
		       const char *per_node)
{
	setenv("SLURM_STEP_NUM_NODES", "2", 1);
	setenv("SLURM_PROCID", rank, 1);
	setenv("SLURM_NTASKS", ntasks, 1);
	setenv("SLURM_LOCALID", localid, 1);
	setenv("SLURM_NODEID", nodeid, 1);
	setenv("SLURM_STEP_TASKS_PER_NODE", per_node, 1);
}

static void expect_error(int err, const char *needle)
{
	struct gf_coll_world w;

	assert_int_equal(gf_coll_world_from_env(&w), err);
	if (!strstr(gf_last_error(), needle))
		fail_msg("'%s' not in '%s'", needle, gf_last_error());
}

static void none_is_single_process(void **state)
{
	(void)state;
	expect_error(-ENOENT, "single-process");
	/* a batch script's own shell: Slurm's rank outside an srun step */
	setenv("SLURM_PROCID", "0", 1);
	setenv("SLURM_NTASKS", "8", 1);
	setenv("SLURM_LOCALID", "0", 1);
	expect_error(-ENOENT, "single-process");
	assert_int_equal(gf_coll_world_from_env(NULL), -EINVAL);
}

static void gpufeed_launch_and_torchrun(void **state)
{
	struct gf_coll_world w;

	(void)state;
	torch("5", "8", "1", "4");
	setenv("MASTER_ADDR", "node0", 1);
	setenv("MASTER_PORT", "29400", 1);
	setenv("TORCHELASTIC_USE_AGENT_STORE", "False", 1);	/* as gpufeed launch exports it */
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.rank, 5);
	assert_int_equal(w.nranks, 8);
	assert_int_equal(w.local_rank, 1);
	assert_int_equal(w.local_nranks, 4);
	assert_string_equal(w.master_addr, "node0");
	assert_int_equal(w.port, 29400);
	assert_string_equal(w.launcher, "gpufeed launch");

	/* torchrun's agent holds MASTER_PORT: the ranks meet one above */
	setenv("TORCHELASTIC_USE_AGENT_STORE", "True", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.port, 29401);
	assert_string_equal(w.launcher, "torchrun");

	setenv("GPUFEED_COLL_PORT", "31000", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.port, 31000);

	unsetenv("GPUFEED_COLL_PORT");
	setenv("MASTER_PORT", "65535", 1);
	expect_error(-EINVAL, "GPUFEED_COLL_PORT");
}

static void srun(void **state)
{
	struct gf_coll_world w;

	(void)state;
	/* node 2 of "4(x2),3": three tasks there, the last of them */
	slurm_step("10", "11", "2", "2", "4(x2),3");
	setenv("MASTER_ADDR", "fe80::1", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.rank, 10);
	assert_int_equal(w.nranks, 11);
	assert_int_equal(w.local_rank, 2);
	assert_int_equal(w.local_nranks, 3);
	assert_int_equal(w.port, 29500);
	assert_string_equal(w.master_addr, "fe80::1");
	assert_string_equal(w.launcher, "srun");

	setenv("SLURM_NODEID", "1", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.local_nranks, 4);

	/* no per-step list: --ntasks-per-node's */
	unsetenv("SLURM_STEP_TASKS_PER_NODE");
	setenv("SLURM_NTASKS_PER_NODE", "6", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.local_nranks, 6);
	unsetenv("SLURM_NTASKS_PER_NODE");
	expect_error(-EINVAL, "SLURM_NTASKS_PER_NODE");

	setenv("SLURM_STEP_TASKS_PER_NODE", "4(x2", 1);
	expect_error(-EINVAL, "SLURM_STEP_TASKS_PER_NODE: malformed");
	setenv("SLURM_STEP_TASKS_PER_NODE", "4,4", 1);
	setenv("SLURM_NODEID", "2", 1);
	expect_error(-EINVAL, "no entry");
}

static void mpirun_and_pmi(void **state)
{
	struct gf_coll_world w;

	(void)state;
	ompi("3", "4", "1", "2");
	setenv("MASTER_ADDR", "10.0.0.1", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_int_equal(w.rank, 3);
	assert_int_equal(w.local_rank, 1);
	assert_int_equal(w.local_nranks, 2);
	assert_string_equal(w.launcher, "mpirun");
	clear(NULL);

	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "2", 1);
	setenv("MPI_LOCALRANKID", "1", 1);
	setenv("MPI_LOCALNRANKS", "2", 1);
	/* every rank on this host: rank 0 is on loopback */
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_string_equal(w.launcher, "pmi");
	assert_string_equal(w.master_addr, "127.0.0.1");
	assert_int_equal(w.nranks, 2);
	unsetenv("MPI_LOCALNRANKS");
	expect_error(-EINVAL, "MPI_LOCALNRANKS");
}

/* The innermost launcher wins: torchrun in an mpirun in an srun step. */
static void precedence(void **state)
{
	struct gf_coll_world w;

	(void)state;
	setenv("MASTER_ADDR", "node0", 1);
	slurm_step("7", "8", "3", "1", "4(x2)");
	setenv("PMI_RANK", "0", 1);
	setenv("PMI_SIZE", "1", 1);
	setenv("MPI_LOCALRANKID", "0", 1);
	setenv("MPI_LOCALNRANKS", "1", 1);
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_string_equal(w.launcher, "pmi");
	ompi("2", "4", "0", "2");
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_string_equal(w.launcher, "mpirun");
	assert_int_equal(w.rank, 2);
	torch("1", "2", "1", "2");
	assert_int_equal(gf_coll_world_from_env(&w), 0);
	assert_string_equal(w.launcher, "gpufeed launch");
	assert_int_equal(w.rank, 1);
	assert_int_equal(w.nranks, 2);
	/* one family read whole: no LOCAL_WORLD_SIZE is not mended from OMPI's */
	unsetenv("LOCAL_WORLD_SIZE");
	expect_error(-EINVAL, "LOCAL_WORLD_SIZE");
}

static void errors_name_the_variable(void **state)
{
	(void)state;
	torch("3", "2", "0", "1");
	expect_error(-EINVAL, "RANK=3 is not below WORLD_SIZE=2");
	torch("0", "2", "0", "1");
	expect_error(-EINVAL, "MASTER_ADDR");	/* two hosts, no address */
	torch("0", "2", "2", "2");
	expect_error(-EINVAL, "LOCAL_RANK=2");
	torch("0", "2", "0", "3");
	expect_error(-EINVAL, "LOCAL_RANK=0 with 3 ranks on this host (LOCAL_WORLD_SIZE) of 2");
	torch("zero", "2", "0", "2");
	expect_error(-EINVAL, "RANK: not an integer");
	torch("0", "0", "0", "1");
	expect_error(-EINVAL, "WORLD_SIZE: 0 is out of range");
	torch("0", "1", "0", "1");
	unsetenv("WORLD_SIZE");
	expect_error(-EINVAL, "RANK is set but WORLD_SIZE is not");
	torch("0", "1", "0", "1");
	setenv("MASTER_PORT", "port", 1);
	expect_error(-EINVAL, "MASTER_PORT");
	setenv("MASTER_PORT", "1", 1);
	setenv("GPUFEED_COLL_PORT", "70000", 1);
	expect_error(-EINVAL, "GPUFEED_COLL_PORT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(none_is_single_process, clear),
		cmocka_unit_test_setup(gpufeed_launch_and_torchrun, clear),
		cmocka_unit_test_setup(srun, clear),
		cmocka_unit_test_setup(mpirun_and_pmi, clear),
		cmocka_unit_test_setup(precedence, clear),
		cmocka_unit_test_setup(errors_name_the_variable, clear),
	};

	return cmocka_run_group_tests_name("coll_world", tests, NULL, NULL);
}
