/* The registry of environment variables gpufeed reads, and the only place
 * that calls getenv (scripts/check-env.sh enforces it).  A new variable is
 * one enum value in include/gpufeed/env.h, one row here and one row in
 * docs/environment.md (tests/unit/test_env.c compares the two). */
#include <errno.h>
#include <stdlib.h>

#include <gpufeed/env.h>
#include "core/error.h"
#include "core/env_export.h"
#include "core/env_registry.h"
#include "core/strutil.h"

static const struct gf_env_info registry[] = {
	[GF_ENV_PCI_LOCALITY] = {
		"GPUFEED_PCI_LOCALITY", GF_ENV_STRING, "sysfs numa_node and local_cpulist", "topo",
		"NUMA node of devices whose locality a VM hides: PCI=NODE;... (as --pci-locality)", 0, 0 },
	[GF_ENV_NVML_LIBRARY] = {
		"GPUFEED_NVML_LIBRARY", GF_ENV_PATH, "libnvidia-ml.so.1", "vendor",
		"NVML library to load instead of libnvidia-ml.so.1 (tests point it at a stand-in)", 0, 0 },
	[GF_ENV_IO_FAULT] = {
		"GPUFEED_IO_FAULT", GF_ENV_STRING, "no faults", "io",
		"Inject I/O faults into the engine, for tests: OP:KIND[=N][@OFF[+LEN]][*COUNT],...", 0, 0 },
	[GF_ENV_LOG] = {
		"GPUFEED_LOG", GF_ENV_STRING, "nothing on stderr (library); errors and warnings pass the filter", "core",
		"Diagnostics to stderr, by level and subsystem: 'info', 'io:debug,topo:warn', 'none'", 0, 0 },
	[GF_ENV_NO_COLOR] = {
		"NO_COLOR", GF_ENV_FLAG, "colour on a terminal", "cli",
		"Set to anything but empty: no colour in text output (no-color.org)", 0, 0 },
	[GF_ENV_SOURCE_DATE_EPOCH] = {
		"SOURCE_DATE_EPOCH", GF_ENV_INT, "the current time", "core",
		"Seconds since 1970 written as generated_at in JSON (reproducible-builds.org)",
		0, 253402300799LL /* 9999-12-31T23:59:59Z */ },
	[GF_ENV_TMPDIR] = {
		"TMPDIR", GF_ENV_PATH, "/tmp", "core",
		"Where a --root FILE.tar.gz is unpacked when /dev/shm is not writable", 0, 0 },
	[GF_ENV_TUNE_FAULT] = {
		"GPUFEED_TUNE_FAULT", GF_ENV_STRING, "no faults", "tune",
		"Stop tune/revert at its Nth journal step, for tests: N (fail) or N:kill (SIGKILL itself)", 0, 0 },
	[GF_ENV_PET_NNODES] = {
		"PET_NNODES", GF_ENV_INT, "SLURM_STEP_NUM_NODES, else 1", "launch",
		"Nodes of a launch, as torchrun's --nnodes default (a Kubeflow PyTorchJob sets it)", 1, 1000000LL },
	[GF_ENV_PET_NODE_RANK] = {
		"PET_NODE_RANK", GF_ENV_INT, "SLURM_NODEID, else 0", "launch",
		"This node's rank in a launch, as torchrun's --node-rank default", 0, 999999LL },
	[GF_ENV_PET_MASTER_ADDR] = {
		"PET_MASTER_ADDR", GF_ENV_STRING, "MASTER_ADDR, the Slurm step's first host, else 127.0.0.1", "launch",
		"Rendezvous host of a launch, as torchrun's --master-addr default", 0, 0LL },
	[GF_ENV_PET_MASTER_PORT] = {
		"PET_MASTER_PORT", GF_ENV_INT, "MASTER_PORT, else 29500", "launch",
		"Rendezvous port of a launch, as torchrun's --master-port default", 1, 65535LL },
	[GF_ENV_SLURM_STEP_NUM_NODES] = {
		"SLURM_STEP_NUM_NODES", GF_ENV_INT, "1", "launch, coll",
		"Nodes of the Slurm step (srun): a launch's --nnodes default; set, the collectives read the srun variables", 1, 1000000LL },
	[GF_ENV_SLURM_NODEID] = {
		"SLURM_NODEID", GF_ENV_INT, "0", "launch, coll",
		"This node's index in the Slurm step: a launch's --node-rank default, the collectives' entry of SLURM_STEP_TASKS_PER_NODE", 0, 999999LL },
	[GF_ENV_SLURM_STEP_NODELIST] = {
		"SLURM_STEP_NODELIST", GF_ENV_STRING, "127.0.0.1", "launch",
		"Hosts of the Slurm step (srun): the first is a launch's rendezvous host unless named", 0, 0LL },
	[GF_ENV_MASTER_ADDR] = {
		"MASTER_ADDR", GF_ENV_STRING, "the Slurm step's first host, else 127.0.0.1", "launch, coll",
		"Rendezvous host of a launch when neither --master-addr nor PET_MASTER_ADDR names one; rank 0's host for the collectives (127.0.0.1 when every rank is on this host)", 0, 0LL },
	[GF_ENV_MASTER_PORT] = {
		"MASTER_PORT", GF_ENV_INT, "29500", "launch, coll",
		"Rendezvous port of a launch when no option or PET_MASTER_PORT names one; the collectives' rank 0 port (see GPUFEED_COLL_PORT)", 1, 65535LL },
	[GF_ENV_CUDA_LIBRARY] = {
		"GPUFEED_CUDA_LIBRARY", GF_ENV_PATH, "libcuda.so.1", "vendor",
		"CUDA driver library to load instead of libcuda.so.1 (tests point it at a stand-in)", 0, 0 },
	[GF_ENV_CUFILE_LIBRARY] = {
		"GPUFEED_CUFILE_LIBRARY", GF_ENV_PATH, "libcufile.so.0", "vendor",
		"cuFile (GPUDirect Storage) library to load instead of libcufile.so.0 (tests point it at a stand-in)", 0, 0 },
	[GF_ENV_PYTHON_EXEC] = {
		"PYTHON_EXEC", GF_ENV_PATH, "python3", "launch",
		"The interpreter launch -m MODULE runs, as torchrun's PYTHON_EXEC", 0, 0LL },
	[GF_ENV_TORCH_NCCL_ASYNC_ERROR_HANDLING] = {
		"TORCH_NCCL_ASYNC_ERROR_HANDLING", GF_ENV_STRING, "1 in every rank, as torchrun sets it", "launch",
		"Passed to the ranks as set; unset, launch sets 1 (a failed collective ends the rank, not a hang)",
		0, 0LL },
	[GF_ENV_NCCL_LIBRARY_OVERRIDE] = {
		"GPUFEED_NCCL_LIBRARY", GF_ENV_PATH, "NCCL_LIBRARY, else libnccl.so.2 on the linker's path, else PyTorch's", "vendor",
		"NCCL library to load (tests point it at a stand-in); wins over NCCL_LIBRARY", 0, 0 },
	[GF_ENV_NCCL_LIBRARY] = {
		"NCCL_LIBRARY", GF_ENV_PATH, "libnccl.so.2 on the linker's path, else PyTorch's", "vendor",
		"NCCL library to load when GPUFEED_NCCL_LIBRARY is unset", 0, 0 },
	[GF_ENV_COLL_PORT] = {
		"GPUFEED_COLL_PORT", GF_ENV_INT, "MASTER_PORT, else 29500 (+ 1 under torchrun, whose agent holds MASTER_PORT)", "coll",
		"TCP port rank 0 of a multi-process bench coll or nccl check listens on for the other ranks", 1, 65535LL },
	[GF_ENV_VIRTUAL_ENV] = {
		"VIRTUAL_ENV", GF_ENV_PATH, "none", "vendor",
		"Python virtual environment whose site-packages is searched for PyTorch's NCCL (nvidia/nccl/lib)", 0, 0LL },
	[GF_ENV_CONDA_PREFIX] = {
		"CONDA_PREFIX", GF_ENV_PATH, "none", "vendor",
		"Conda environment whose site-packages is searched for PyTorch's NCCL", 0, 0LL },
	[GF_ENV_SEARCH_PATH] = {
		"PATH", GF_ENV_STRING, "none", "vendor",
		"The python3 found on it names a prefix whose site-packages is searched for PyTorch's NCCL", 0, 0LL },
	[GF_ENV_RANK] = {
		"RANK", GF_ENV_INT, "none (a single-process run)", "coll",
		"This process's global rank under torchrun or gpufeed launch (multi-process bench coll, nccl check)", 0, 999999LL },
	[GF_ENV_WORLD_SIZE] = {
		"WORLD_SIZE", GF_ENV_INT, "none", "coll",
		"Number of ranks under torchrun or gpufeed launch", 1, 1000000LL },
	[GF_ENV_LOCAL_RANK] = {
		"LOCAL_RANK", GF_ENV_INT, "none", "coll",
		"This process's rank on its host under torchrun or gpufeed launch", 0, 999999LL },
	[GF_ENV_LOCAL_WORLD_SIZE] = {
		"LOCAL_WORLD_SIZE", GF_ENV_INT, "none", "coll",
		"Number of ranks on this host under torchrun or gpufeed launch", 1, 1000000LL },
	[GF_ENV_TORCHELASTIC_USE_AGENT_STORE] = {
		"TORCHELASTIC_USE_AGENT_STORE", GF_ENV_STRING, "False", "coll",
		"True under torchrun when its agent's store holds MASTER_PORT: rank 0 of bench coll then listens on MASTER_PORT + 1", 0, 0 },
	[GF_ENV_SLURM_PROCID] = {
		"SLURM_PROCID", GF_ENV_INT, "none", "coll",
		"This task's global rank in a Slurm step (srun), when no torchrun, Open MPI or PMI rank is set", 0, 999999LL },
	[GF_ENV_SLURM_NTASKS] = {
		"SLURM_NTASKS", GF_ENV_INT, "none", "coll",
		"Number of tasks (ranks) of the Slurm step", 1, 1000000LL },
	[GF_ENV_SLURM_LOCALID] = {
		"SLURM_LOCALID", GF_ENV_INT, "none", "coll",
		"This task's rank on its node in a Slurm step", 0, 999999LL },
	[GF_ENV_SLURM_NTASKS_PER_NODE] = {
		"SLURM_NTASKS_PER_NODE", GF_ENV_INT, "none", "coll",
		"Tasks on each node of a Slurm step (srun --ntasks-per-node) when SLURM_STEP_TASKS_PER_NODE is unset", 1, 1000000LL },
	[GF_ENV_SLURM_STEP_TASKS_PER_NODE] = {
		"SLURM_STEP_TASKS_PER_NODE", GF_ENV_STRING, "SLURM_NTASKS_PER_NODE", "coll",
		"Tasks on each node of the Slurm step ('2(x3),1'); this node's entry (SLURM_NODEID) is its local rank count", 0, 0 },
	[GF_ENV_OMPI_COMM_WORLD_RANK] = {
		"OMPI_COMM_WORLD_RANK", GF_ENV_INT, "none", "coll",
		"This process's rank under Open MPI's mpirun, when no torchrun rank is set", 0, 999999LL },
	[GF_ENV_OMPI_COMM_WORLD_SIZE] = {
		"OMPI_COMM_WORLD_SIZE", GF_ENV_INT, "none", "coll",
		"Number of ranks under Open MPI's mpirun", 1, 1000000LL },
	[GF_ENV_OMPI_COMM_WORLD_LOCAL_RANK] = {
		"OMPI_COMM_WORLD_LOCAL_RANK", GF_ENV_INT, "none", "coll",
		"This process's rank on its host under Open MPI's mpirun", 0, 999999LL },
	[GF_ENV_OMPI_COMM_WORLD_LOCAL_SIZE] = {
		"OMPI_COMM_WORLD_LOCAL_SIZE", GF_ENV_INT, "none", "coll",
		"Number of ranks on this host under Open MPI's mpirun", 1, 1000000LL },
	[GF_ENV_PMI_RANK] = {
		"PMI_RANK", GF_ENV_INT, "none", "coll",
		"This process's rank under MPICH's Hydra (mpiexec), when no torchrun or Open MPI rank is set", 0, 999999LL },
	[GF_ENV_PMI_SIZE] = {
		"PMI_SIZE", GF_ENV_INT, "none", "coll",
		"Number of ranks under MPICH's Hydra", 1, 1000000LL },
	[GF_ENV_MPI_LOCALRANKID] = {
		"MPI_LOCALRANKID", GF_ENV_INT, "none", "coll",
		"This process's rank on its host under MPICH's Hydra", 0, 999999LL },
	[GF_ENV_MPI_LOCALNRANKS] = {
		"MPI_LOCALNRANKS", GF_ENV_INT, "none", "coll",
		"Number of ranks on this host under MPICH's Hydra", 1, 1000000LL },
	[GF_ENV_NCCL_DEBUG] = {
		"NCCL_DEBUG", GF_ENV_STRING, "NCCL logs nothing", "nccl",
		"NCCL's log level; bench coll sets it for one untimed call per size and puts it back", 0, 0 },
	[GF_ENV_NCCL_DEBUG_SUBSYS] = {
		"NCCL_DEBUG_SUBSYS", GF_ENV_STRING, "INIT,BOOTSTRAP,ENV", "nccl",
		"NCCL's logged subsystems; set and put back with NCCL_DEBUG", 0, 0 },
	[GF_ENV_NCCL_DEBUG_FILE] = {
		"NCCL_DEBUG_FILE", GF_ENV_PATH, "NCCL logs to stdout", "nccl",
		"NCCL's log file; when set, bench coll leaves NCCL's log alone (no algorithm column)", 0, 0 },
	[GF_ENV_COLUMNS] = {
		"COLUMNS", GF_ENV_INT, "the terminal's width (TIOCGWINSZ), 100 when not a terminal", "cli",
		"Width of text output (check, tune, topo) on a terminal; output elsewhere is 100 columns wide",
		20, 10000 },
	[GF_ENV_DIAGNOSE] = {
		"GPUFEED_DIAGNOSE", GF_ENV_PATH, "no step markers published", "core",
		"Directory where gf_step()/gpufeed.step() and the loader publish step markers (gpufeed diagnose sets it)",
		0, 0 },
};

#define NVARS ((int)(sizeof(registry) / sizeof(registry[0])))
/* The last id has a row: ids and rows cannot drift apart. */
_Static_assert(NVARS == GF_ENV_DIAGNOSE + 1, "every gf_env_var needs a registry row");

int gf_env_count(void)
{
	return NVARS;
}

const struct gf_env_info *gf_env_info(enum gf_env_var var)
{
	if ((int)var < 0 || (int)var >= NVARS || !registry[var].name)
		return NULL;
	return &registry[var];
}

GF_API const char *gf_env_name(enum gf_env_var var)
{
	const struct gf_env_info *e = gf_env_info(var);

	return e ? e->name : "?";
}

/* secure_getenv: a set-id program never takes a library path or a fault
 * plan from its caller's environment. */
static const char *raw(const struct gf_env_info *e)
{
	const char *v = secure_getenv(e->name);

	return v && *v ? v : NULL;
}

GF_API const char *gf_env_str(enum gf_env_var var)
{
	const struct gf_env_info *e = gf_env_info(var);

	return e ? raw(e) : NULL;
}

GF_API int gf_env_int(enum gf_env_var var, long long *out)
{
	const struct gf_env_info *e = gf_env_info(var);
	const char *v;
	long long n;

	if (!e)
		return gf_arg_error(__func__, "var %d is not a registered variable", (int)var);
	if (e->type != GF_ENV_INT)
		return gf_arg_error(__func__, "var %s is not an integer variable", e->name);
	if (!out)
		return GF_NULL_ARG("out");
	v = raw(e);
	if (!v)
		return 0;
	if (gf_parse_ll(v, &n))
		return gf_error(-EINVAL, "%s: not an integer: '%s'", e->name, v);
	if (n < e->min || n > e->max)
		return gf_error(-EINVAL, "%s: %lld is out of range [%lld, %lld]", e->name, n, e->min, e->max);
	*out = n;
	return 1;
}

GF_API bool gf_env_flag(enum gf_env_var var)
{
	const struct gf_env_info *e = gf_env_info(var);

	return e && e->type == GF_ENV_FLAG && raw(e);
}

/* The one place that changes the environment: what a caller asked to
 * export (gf_bind_setenv: CUDA_VISIBLE_DEVICES and the rest, for the
 * command gpufeed run executes next), or put back as it was (value NULL:
 * unset). */
int gf_env_export(const char *name, const char *value)
{
	if (value ? setenv(name, value, 1) : unsetenv(name))
		return gf_error_errno(-errno, name);
	return 0;
}
