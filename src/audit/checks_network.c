/* Network and RDMA checks: InfiniBand, RoCE, GPUDirect RDMA and the socket
 * sysctls (docs/checks.md, "Network and RDMA", which names each one's
 * public source).
 *
 * The socket sysctls feed what still goes through the kernel's TCP stack
 * (NCCL's socket transport and bootstrap, data loaders reading object
 * storage, checkpoint uploads); the RDMA checks cover the path NCCL and GDS
 * take around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"

#define MIB16 16777216LL		/* TuneD network-throughput's socket buffer maximum */
#define NODEPORT_LO 30000		/* Kubernetes' default NodePort range */
#define NODEPORT_HI 32767
#define DEFAULT_PORT_SPAN 28232		/* the kernel's 32768-60999 */
#define FAST_NIC_MBPS 25000		/* where netdev_max_backlog starts to drop */
#define ROCE_MIN_MTU 4200		/* fits RoCE's 4096-byte path MTU plus headers */
#define IPOIB_MIN_MTU 4092		/* IPoIB datagram mode over a 4K IB MTU */

/* ---- sysctls ---------------------------------------------------------- */

/* One numeric sysctl compared with a floor: warn below it, a safe fix to
 * raise it. */
static void sysctl_floor(struct gf_audit_ctx *c, const char *key, long long floor, const char *why_low)
{
	struct gf_check_result *r = audit_result(c, "");
	char path[128], value[32];
	long long v;

	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	if (audit_read_ll(c, r, path, &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, ">= %lld", floor);
	if (v < floor) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "%s", why_low);
		snprintf(value, sizeof(value), "%lld", floor);
		audit_sysctl_fix(r, key, value);
	}
}

static void run_rmem_max(struct gf_audit_ctx *c)
{
	sysctl_floor(c, "net.core.rmem_max", MIB16,
		     "caps every socket's receive buffer (SO_RCVBUF): a 100-400 Gb/s stream stalls on the window");
}

static void run_wmem_max(struct gf_audit_ctx *c)
{
	sysctl_floor(c, "net.core.wmem_max", MIB16,
		     "caps every socket's send buffer (SO_SNDBUF): a 100-400 Gb/s stream stalls on the window");
}

/* tcp_rmem / tcp_wmem: "min default max"; autotuning grows up to max. */
static void tcp_mem(struct gf_audit_ctx *c, const char *key, const char *path)
{
	struct gf_check_result *r = audit_result(c, "");
	char buf[128], value[96];
	long long lo, def, max;

	if (audit_read_str(c, r, path, buf, sizeof(buf)))
		return;
	if (sscanf(buf, "%lld %lld %lld", &lo, &def, &max) != 3 || lo < 0 || def < 0 || max < 0) {
		audit_error(r, "%s: not three numbers: '%s'", path, buf);
		return;
	}
	audit_observed(r, "%lld %lld %lld", lo, def, max);
	audit_expected(r, "max >= %lld (16 MiB)", MIB16);
	if (max < MIB16) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "TCP autotuning stops at %lld bytes: a long fat pipe cannot be filled", max);
		snprintf(value, sizeof(value), "%lld %lld %lld", lo, def, MIB16);
		audit_sysctl_fix(r, key, value);
	}
}

static void run_tcp_rmem(struct gf_audit_ctx *c)
{
	tcp_mem(c, "net.ipv4.tcp_rmem", "/proc/sys/net/ipv4/tcp_rmem");
}

static void run_tcp_wmem(struct gf_audit_ctx *c)
{
	tcp_mem(c, "net.ipv4.tcp_wmem", "/proc/sys/net/ipv4/tcp_wmem");
}

/* After an idle pause (between steps, between checkpoint shards) TCP
 * restarts from a small window unless this is 0. */
static void run_slow_start_idle(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/net/ipv4/tcp_slow_start_after_idle", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, "0");
	if (v != 0) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "bursty transfers restart from slow start after every idle pause");
		audit_sysctl_fix(r, "net.ipv4.tcp_slow_start_after_idle", "0");
	}
}

/* Serving takes many connections at once: the listen backlog matters more. */
static void run_somaxconn(struct gf_audit_ctx *c)
{
	bool infer = c->profile == GF_PROFILE_INFERENCE;

	sysctl_floor(c, "net.core.somaxconn", infer ? 4096 : 2048,
		     infer ? "a burst of client connections overflows the listen queue (SYNs dropped, 1-3 s retries)"
			   : "rendezvous of many ranks overflows the listen queue (SYNs dropped, 1-3 s retries)");
}

/* The per-CPU input queue only fills on fast NICs; on a 1-10 Gb/s or virtio
 * NIC the default 1000 is right, so the check does not apply there. */
static void run_netdev_backlog(struct gf_audit_ctx *c)
{
	long long fastest = -1;

	for (int i = 0; i < c->t->nnics; i++)
		if (c->t->nics[i].speed_mbps > fastest)
			fastest = c->t->nics[i].speed_mbps;
	if (fastest < FAST_NIC_MBPS) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "/proc/sys/net/core/netdev_max_backlog");
		if (fastest > 0)
			audit_na(r, "no NIC of %d Gb/s or more (fastest %lld Mb/s)", FAST_NIC_MBPS / 1000, fastest);
		else
			audit_na(r, "no NIC of %d Gb/s or more (no line rate known)", FAST_NIC_MBPS / 1000);
		return;
	}
	sysctl_floor(c, "net.core.netdev_max_backlog", 250000,
		     "packets arriving faster than softirq drains them are dropped at the backlog");
}

/* ---- port range ------------------------------------------------------- */

/* Does the reserved-ports list ("1000-2000,3000") cover every port of
 * [lo, hi]? */
static bool reserved_covers(const char *list, long lo, long hi)
{
	for (long p = lo; p <= hi; p++) {
		bool in = false;

		for (const char *s = list; s && *s && !in;) {
			char *end;
			long a = strtol(s, &end, 10), b = a;

			if (end == s)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			in = p >= a && p <= b;
			s = strchr(end, ',');
			s = s ? s + 1 : NULL;
		}
		if (!in)
			return false;
	}
	return true;
}

static bool kubernetes_node(struct gf_audit_ctx *c)
{
	return audit_exists(c, "/var/lib/kubelet/config.yaml");
}

static void run_port_range(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char buf[64], *list = NULL, *value = NULL;
	const char *reserved;
	size_t len = 0;
	long lo, hi, span;
	bool overlap, k8s;

	if (audit_read_str(c, r, "/proc/sys/net/ipv4/ip_local_port_range", buf, sizeof(buf)))
		return;
	if (sscanf(buf, "%ld %ld", &lo, &hi) != 2 || lo < 1 || hi > 65535 || hi < lo) {
		audit_error(r, "/proc/sys/net/ipv4/ip_local_port_range: not a range: '%s'", buf);
		return;
	}
	/* Whole, however long (a Kubernetes node reserves many): the fix
	 * extends this very list. */
	if (audit_read(c, NULL, "/proc/sys/net/ipv4/ip_local_reserved_ports", &list, &len))
		list = NULL;
	while (list && len && strchr(" \t\n", list[len - 1]))
		list[--len] = '\0';
	reserved = list ? list : "";
	audit_source(r, "/proc/sys/net/ipv4/ip_local_port_range, ip_local_reserved_ports");
	span = hi - lo + 1;
	k8s = kubernetes_node(c);
	overlap = lo <= NODEPORT_HI && hi >= NODEPORT_LO &&
		  !reserved_covers(reserved, lo > NODEPORT_LO ? lo : NODEPORT_LO, hi < NODEPORT_HI ? hi : NODEPORT_HI);
	audit_observed(r, "%ld-%ld (%ld ports)%s%s", lo, hi, span, reserved[0] ? ", reserved " : "", reserved);
	audit_expected(r, ">= %d ports%s", DEFAULT_PORT_SPAN,
		       k8s ? ", clear of NodePorts 30000-32767" : "");
	if (span < DEFAULT_PORT_SPAN) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "narrower than the kernel's default 32768-60999: many ranks and loader workers run out of ephemeral ports (EADDRNOTAVAIL)");
		audit_sysctl_fix(r, "net.ipv4.ip_local_port_range", "32768 65535");
	} else if (overlap && k8s) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "a Kubernetes node: outgoing connections may take a NodePort (30000-32767) a Service then cannot bind");
		if (asprintf(&value, "%s%s30000-32767", reserved, reserved[0] ? "," : "") >= 0)
			audit_sysctl_fix(r, "net.ipv4.ip_local_reserved_ports", value);
		free(value);
	} else if (overlap) {
		audit_note(r, "overlaps 30000-32767, which matters only on a Kubernetes node (none seen)");
	}
	free(list);
}

/* ---- RDMA: MTU, ports, GPUDirect ------------------------------------- */

static bool has_rdma(const struct gf_topo *t)
{
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].rdma[0])
			return true;
	return false;
}

struct mtu_if {
	char name[32];
	const struct gf_nic *nic;
	long long mtu;			/* -1 unread */
	int ri;				/* its result's index: audit_result()
					 * may move earlier results */
};

static struct gf_check_result *result_at(struct gf_audit_ctx *c, int ri)
{
	return ri >= 0 && ri < c->a->nresults ? &c->a->results[ri] : NULL;
}

/* The MTU most interfaces of `x`'s fabric (same link layer and line rate)
 * use, and how many share it. */
static long long fabric_mtu(const struct mtu_if *ifs, int n, const struct mtu_if *x, int *peers)
{
	long long best = -1;
	int best_n = 0;

	for (int i = 0; i < n; i++) {
		int k = 0;

		if (ifs[i].mtu < 0)
			continue;
		for (int j = 0; j < n; j++)
			k += ifs[j].mtu == ifs[i].mtu && !strcmp(ifs[j].nic->link_layer, x->nic->link_layer) &&
			     ifs[j].nic->speed_mbps == x->nic->speed_mbps;
		if (!strcmp(ifs[i].nic->link_layer, x->nic->link_layer) && ifs[i].nic->speed_mbps == x->nic->speed_mbps &&
		    (k > best_n || (k == best_n && ifs[i].mtu > best))) {
			best = ifs[i].mtu;
			best_n = k;
		}
	}
	*peers = best_n;
	return best;
}

static int collect_mtus(struct gf_audit_ctx *c, struct mtu_if *ifs, int max)
{
	int n = 0;

	for (int i = 0; i < c->t->nnics; i++) {
		const struct gf_nic *nic = &c->t->nics[i];
		char nd[sizeof(nic->netdevs)], *save = NULL, path[128];

		if (!nic->rdma[0])
			continue;
		gf_strlcpy(nd, nic->netdevs, sizeof(nd));
		for (char *tok = strtok_r(nd, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "+"))
				continue;
			gf_strlcpy(ifs[n].name, tok, sizeof(ifs[n].name));
			ifs[n].nic = nic;
			ifs[n].ri = audit_result(c, tok) ? c->a->nresults - 1 : -1;
			snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", tok);
			if (audit_read_ll(c, result_at(c, ifs[n].ri), path, &ifs[n].mtu))
				ifs[n].mtu = -1;
			n++;
		}
	}
	return n;
}

/* The MTU is a sysfs write tune can undo, but it changes the network (the
 * switch and the peers must agree): tune applies it only when net.mtu is
 * named with --only. */
static void named_mtu(struct gf_check_result *r, const struct mtu_if *x, long long mtu)
{
	char path[160], value[24];

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", x->name);
	snprintf(value, sizeof(value), "%lld", mtu);
	audit_named_fix(r, path, value);
}

static void judge_mtu(struct gf_audit_ctx *c, struct mtu_if *ifs, int n, struct mtu_if *x)
{
	bool ib = !strcmp(x->nic->link_layer, "InfiniBand");
	long long floor = ib ? IPOIB_MIN_MTU : ROCE_MIN_MTU, common;
	struct gf_check_result *r = result_at(c, x->ri);
	int peers;

	if (!r)
		return;
	audit_observed(r, "%lld (%s, %s)", x->mtu, x->nic->rdma, x->nic->link_layer[0] ? x->nic->link_layer : "?");
	audit_expected(r, ib ? ">= %lld (IPoIB over a 4K IB MTU; 65520 in connected mode), equal across the fabric"
			     : ">= %lld (jumbo frames, 9000 customary), equal across the fabric",
		       floor);
	r->fix_class = GF_FIX_ADVICE;
	audit_persist(r, "MTU in the interface's netplan/NetworkManager/ifcfg file, and the same on the switch ports");
	common = fabric_mtu(ifs, n, x, &peers);
	if (x->mtu < floor) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, ib ? "IPoIB traffic (storage, bootstrap) is cut into small packets"
				 : "RoCE falls back to a 1024/2048-byte path MTU and TCP to small frames");
		audit_fix(r, "ip link set dev %s mtu %d (changes the network: coordinate with the switch)", x->name,
			  ib ? 4092 : 9000);
		named_mtu(r, x, ib ? 4092 : 9000);
	} else if (common > 0 && x->mtu != common && peers > 1) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "%d other interface(s) of this fabric use %lld: mismatched MTUs drop or fragment traffic",
			   peers, common);
		audit_fix(r, "ip link set dev %s mtu %lld (changes the network: coordinate with the switch)", x->name,
			  common);
		named_mtu(r, x, common);
	} else {
		r->fix_class = GF_FIX_NONE;
		r->persist[0] = '\0';
	}
}

static void run_mtu(struct gf_audit_ctx *c)
{
	struct mtu_if ifs[64];
	int n;

	if (!has_rdma(c->t)) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "/sys/class/net/*/mtu of RDMA interfaces");
		audit_na(r, "no RDMA NIC (InfiniBand or RoCE)");
		return;
	}
	n = collect_mtus(c, ifs, (int)(sizeof(ifs) / sizeof(ifs[0])));
	for (int i = 0; i < n; i++)
		if (ifs[i].mtu >= 0)
			judge_mtu(c, ifs, n, &ifs[i]);
}

/* "400 Gb/sec (4X NDR)" -> 400. */
static double ib_rate(const char *s)
{
	double g;

	return sscanf(s, "%lf", &g) == 1 && g > 0 ? g : 0;
}

struct ib_port {
	char subject[48];
	char layer[16];
	char board[64];			/* board_id (else hca_type): the card's model */
	char state[32], phys[32], rate[48];
	double gbps;
	int ri;				/* its result's index (see mtu_if) */
};

static const char *after_colon(const char *s)
{
	const char *p = strchr(s, ':');

	p = p ? p + 1 : s;
	while (*p == ' ')
		p++;
	return p;
}

static void judge_port(struct gf_audit_ctx *c, struct ib_port *p, const struct ib_port *all, int n)
{
	struct gf_check_result *r = result_at(c, p->ri);
	double best = 0;

	if (!r)
		return;
	/* The fastest active port of the same card model on the same link
	 * layer: what this port should reach too.  (Different cards, say a
	 * 100 Gb/s storage NIC beside 400 Gb/s compute NICs, are not compared.) */
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].layer, p->layer) && !strcmp(all[i].board, p->board) &&
		    strstr(all[i].state, "ACTIVE") && all[i].gbps > best)
			best = all[i].gbps;
	audit_observed(r, "%s, %s, %s", after_colon(p->state), after_colon(p->phys), p->rate);
	audit_expected(r, "ACTIVE, LinkUp, at the fabric's rate");
	if (strstr(p->state, "ACTIVE")) {
		if (best > 0 && p->gbps > 0 && p->gbps < best) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "slower than another port of the same card model (%s, %g Gb/s): fewer lanes or a lower speed trained (cable, transceiver, switch port)",
				   p->board, best);
		}
	} else if (strstr(p->phys, "Disabled")) {
		audit_na(r, "port disabled (unused)");
	} else if (strstr(p->phys, "LinkUp")) {
		audit_status(r, GF_CHECK_FAIL);
		audit_note(r, "the cable is up but the port is not ACTIVE: no subnet manager has configured it (opensm/UFM)");
	} else if (strstr(p->phys, "Polling")) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "no link: no cable or no peer (a spare port, or a cabling fault)");
	} else {
		audit_status(r, GF_CHECK_FAIL);
		audit_note(r, "the port is down");
	}
}

static int collect_ports(struct gf_audit_ctx *c, struct ib_port *ports, int max)
{
	int n = 0;

	for (int i = 0; i < c->t->nnics && n < max; i++) {
		const struct gf_nic *nic = &c->t->nics[i];
		char dir[128], **names;
		int nn;

		if (!nic->rdma[0])
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports", nic->rdma);
		if (gf_fs_list(&c->fs, dir, &names, &nn))
			continue;
		for (int k = 0; k < nn && n < max; k++) {
			struct ib_port *p = &ports[n];
			char path[256];

			memset(p, 0, sizeof(*p));
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/board_id", nic->rdma);
			if (audit_peek_str(c, path, p->board, sizeof(p->board))) {
				snprintf(path, sizeof(path), "/sys/class/infiniband/%s/hca_type", nic->rdma);
				if (audit_peek_str(c, path, p->board, sizeof(p->board)))
					p->board[0] = '\0';
			}
			snprintf(p->subject, sizeof(p->subject), "%s/%s", nic->rdma, names[k]);
			p->ri = audit_result(c, p->subject) ? c->a->nresults - 1 : -1;
			snprintf(path, sizeof(path), "%s/%s/state", dir, names[k]);
			if (audit_read_str(c, result_at(c, p->ri), path, p->state, sizeof(p->state)))
				continue;
			audit_source(result_at(c, p->ri), "%s/%s/{state,phys_state,rate}", dir, names[k]);
			snprintf(path, sizeof(path), "%s/%s/phys_state", dir, names[k]);
			if (audit_read_str(c, result_at(c, p->ri), path, p->phys, sizeof(p->phys)))
				continue;
			snprintf(path, sizeof(path), "%s/%s/rate", dir, names[k]);
			if (audit_read_str(c, result_at(c, p->ri), path, p->rate, sizeof(p->rate)))
				continue;
			snprintf(path, sizeof(path), "%s/%s/link_layer", dir, names[k]);
			if (audit_peek_str(c, path, p->layer, sizeof(p->layer)))
				gf_strlcpy(p->layer, nic->link_layer, sizeof(p->layer));
			p->gbps = ib_rate(p->rate);
			n++;
		}
		gf_strv_free(names, nn);
	}
	return n;
}

static void run_ib_port(struct gf_audit_ctx *c)
{
	struct ib_port ports[128];
	int n;

	if (!has_rdma(c->t)) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "/sys/class/infiniband/*/ports/*");
		audit_na(r, "no RDMA NIC (InfiniBand or RoCE)");
		return;
	}
	n = collect_ports(c, ports, (int)(sizeof(ports) / sizeof(ports[0])));
	for (int i = 0; i < n; i++)
		judge_port(c, &ports[i], ports, n);
}

/* /sys/module is absent only in a recording made before gpufeed copied it:
 * then "not loaded" cannot be told from "not recorded". */
static bool modules_known(struct gf_audit_ctx *c, struct gf_check_result *r)
{
	if (audit_exists(c, "/sys/module"))
		return true;
	audit_na(r, "the recording holds no /sys/module: loaded modules unknown");
	return false;
}

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05 ...":
 * the open flavour, and the driver's major version (0 unknown). */
static bool open_driver(struct gf_audit_ctx *c, int *major)
{
	char *data = NULL;
	const char *v;
	size_t len;
	bool open;

	*major = 0;
	if (gf_fs_read(&c->fs, "/proc/driver/nvidia/version", &data, &len))
		return false;
	open = strstr(data, "Open Kernel Module") != NULL;
	v = strstr(data, "Kernel Module");
	for (; v && *v && *v != '\n'; v++) {
		int a, b;

		/* The first word of the form N.N ("x86_64" is not one). */
		if (v[-1] == ' ' && sscanf(v, "%d.%d", &a, &b) == 2 && a > 0) {
			*major = a;
			break;
		}
	}
	free(data);
	return open;
}

static bool kernel_at_least(const char *release, int maj, int min)
{
	int a = 0, b = 0;

	if (sscanf(release, "%d.%d", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

/* GPUDirect RDMA: without peer memory (or DMA-BUF) every NCCL transfer
 * between nodes is staged through host memory by the CPU. */
static void run_peermem(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	int major;

	audit_source(r, "/sys/module/nvidia_peermem, /sys/module/nv_peer_mem, /proc/driver/nvidia/version");
	audit_expected(r, "nvidia_peermem loaded (or DMA-BUF: open kernel modules >= 525, kernel >= 5.12)");
	if (!has_rdma(c->t)) {
		audit_na(r, "no RDMA NIC: GPUDirect RDMA does not apply");
		return;
	}
	if (!modules_known(c, r))
		return;
	if (audit_exists(c, "/sys/module/nvidia_peermem") || audit_exists(c, "/sys/module/nv_peer_mem")) {
		audit_observed(r, "%s loaded",
			       audit_exists(c, "/sys/module/nvidia_peermem") ? "nvidia_peermem" : "nv_peer_mem");
		return;
	}
	if (open_driver(c, &major) && major >= 525 && kernel_at_least(c->t->machine.kernel, 5, 12)) {
		audit_observed(r, "no peer-memory module; open kernel modules %d, kernel %s", major, c->t->machine.kernel);
		audit_note(r, "DMA-BUF GPUDirect RDMA is available (NVIDIA's recommended path; NCCL uses it by default) if rdma-core/MOFED supports ibv_reg_dmabuf_mr");
		return;
	}
	audit_observed(r, "neither nvidia_peermem nor nv_peer_mem loaded%s", major && major < 525 ? "; driver < 525" : "");
	audit_status(r, GF_CHECK_FAIL);
	audit_note(r, "no GPUDirect RDMA: NCCL copies every inter-node message through host memory");
	audit_fix(r, "modprobe nvidia-peermem");
	audit_persist(r, "'nvidia-peermem' in %s (GPU Operator: driver.rdma.enabled=true)", GF_PERSIST_MODULES_LOAD);
	r->fix_class = GF_FIX_ADVICE;
}

/* A GPU and an NVMe drive under one PCIe switch (PIX/PXB): GDS can move
 * data between them without the CPU's memory. */
static bool nvme_shares_switch(const struct gf_topo *t)
{
	const struct gf_matrix *m = &t->matrix;

	for (int i = 0; i < m->n; i++)
		for (int j = 0; j < m->n; j++) {
			const struct gf_link *l;

			if (m->dev[i].kind != GF_DEV_GPU || m->dev[j].kind != GF_DEV_NVME)
				continue;
			l = gf_matrix_at(m, i, j);
			if (l && (l->pcie == GF_LINK_PIX || l->pcie == GF_LINK_PXB))
				return true;
		}
	return false;
}

static void run_nvidia_fs(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	const char *env = audit_getenv(c, "CUFILE_ENV_PATH_JSON");
	const char *conf = env && env[0] ? env : "/etc/cufile.json";
	bool configured = audit_exists(c, conf), shared = nvme_shares_switch(c->t), nvme = false;

	for (int i = 0; i < c->t->nblocks; i++)
		nvme |= c->t->blocks[i].nvme;

	audit_source(r, "/sys/module/nvidia_fs, %s, the PCIe tree", conf);
	audit_expected(r, "nvidia_fs loaded where GDS is configured or NVMe shares a switch with a GPU");
	if (!configured && !shared) {
		audit_na(r, "no GDS configuration (%s) and no NVMe drive under a GPU's PCIe switch", conf);
		return;
	}
	/* cuFile's packages install cufile.json with the CUDA toolkit: without
	 * a local NVMe drive there is no GDS hardware here (a VM's virtio disk,
	 * network storage without GDS support). */
	if (!nvme) {
		audit_na(r, "no NVMe drive here: GPUDirect Storage has no local drive to read (%s is cuFile's default "
			 "configuration)", conf);
		return;
	}
	if (!modules_known(c, r))
		return;
	if (audit_exists(c, "/sys/module/nvidia_fs")) {
		audit_observed(r, "nvidia_fs loaded%s", configured ? ", GDS configured" : "");
		return;
	}
	audit_observed(r, "nvidia_fs not loaded; %s%s", configured ? "GDS configured" : "",
		       shared ? (configured ? ", NVMe under a GPU's switch" : "NVMe under a GPU's switch") : "");
	/* Configured and wired for it (NVMe under a GPU's switch): GDS is
	 * meant to run and silently does not.  One without the other: a warn. */
	audit_status(r, configured && shared ? GF_CHECK_FAIL : GF_CHECK_WARN);
	audit_note(r, configured ? "cuFile runs in compatibility mode: reads bounce through host memory"
				 : "GPUDirect Storage could read these drives straight into GPU memory (if you use cuFile)");
	audit_fix(r, "modprobe nvidia-fs");
	audit_persist(r, "'nvidia-fs' in %s (DGX: nvidia-fs-loader; GPU Operator: gds.enabled=true)",
		      GF_PERSIST_MODULES_LOAD);
	r->fix_class = GF_FIX_ADVICE;
}

const struct gf_check_def gf_checks_network[] = {
	{ { "net.port-range", "network", "the ephemeral port range should be wide and clear of NodePorts",
	    "a narrow range runs out of ports; one over Kubernetes NodePorts collides with services; "
	    "docs/checks.md#net.port-range; \"IP Sysctl\", https://docs.kernel.org/networking/ip-sysctl.html; "
	    "\"Kubernetes: Service (type NodePort)\", https://kubernetes.io/docs/concepts/services-networking/service/#type-nodeport",
	    "/proc/sys/net/ipv4/ip_local_port_range, ip_local_reserved_ports",
	    ">= 28232 ports; on Kubernetes nodes 30000-32767 reserved or outside",
	    ">= 28232 ports; on Kubernetes nodes 30000-32767 reserved or outside",
	    "sysctl -w net.ipv4.ip_local_port_range='32768 65535' or reserve 30000-32767 (safe)", 0 },
	  run_port_range },
	{ { "net.rmem-max", "network", "net.core.rmem_max should allow 16 MiB receive buffers",
	    "socket buffers capped below 16 MiB limit TCP throughput on fast links; "
	    "docs/checks.md#net.rmem-max; "
	    "\"Documentation for /proc/sys/net/\", https://docs.kernel.org/admin-guide/sysctl/net.html#rmem-max; "
	    "\"TuneD network-throughput profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-throughput/tuned.conf",
	    "/proc/sys/net/core/rmem_max", ">= 16777216", ">= 16777216", "sysctl -w net.core.rmem_max=16777216 (safe)",
	    0 },
	  run_rmem_max },
	{ { "net.wmem-max", "network", "net.core.wmem_max should allow 16 MiB send buffers",
	    "socket buffers capped below 16 MiB limit TCP throughput on fast links; "
	    "docs/checks.md#net.wmem-max; "
	    "\"Documentation for /proc/sys/net/\", https://docs.kernel.org/admin-guide/sysctl/net.html#wmem-max; "
	    "\"TuneD network-throughput profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-throughput/tuned.conf",
	    "/proc/sys/net/core/wmem_max", ">= 16777216", ">= 16777216", "sysctl -w net.core.wmem_max=16777216 (safe)",
	    0 },
	  run_wmem_max },
	{ { "net.tcp-rmem", "network", "TCP receive autotuning should be allowed to grow to 16 MiB",
	    "TCP receive windows need room to grow on fast, long links; docs/checks.md#net.tcp-rmem; "
	    "\"IP Sysctl\", https://docs.kernel.org/networking/ip-sysctl.html; "
	    "\"TuneD network-throughput profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-throughput/tuned.conf",
	    "/proc/sys/net/ipv4/tcp_rmem", "max >= 16777216", "max >= 16777216",
	    "sysctl -w net.ipv4.tcp_rmem='MIN DEFAULT 16777216' (safe)", 0 },
	  run_tcp_rmem },
	{ { "net.tcp-wmem", "network", "TCP send autotuning should be allowed to grow to 16 MiB",
	    "TCP send windows need room to grow on fast, long links; docs/checks.md#net.tcp-wmem; "
	    "\"IP Sysctl\", https://docs.kernel.org/networking/ip-sysctl.html; "
	    "\"TuneD network-throughput profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-throughput/tuned.conf",
	    "/proc/sys/net/ipv4/tcp_wmem", "max >= 16777216", "max >= 16777216",
	    "sysctl -w net.ipv4.tcp_wmem='MIN DEFAULT 16777216' (safe)", 0 },
	  run_tcp_wmem },
	{ { "net.slow-start-idle", "network", "TCP should keep its window across idle pauses",
	    "slow start after idle shrinks the window between bursts of collective traffic; "
	    "docs/checks.md#net.slow-start-idle; "
	    "\"IP Sysctl\", https://docs.kernel.org/networking/ip-sysctl.html; "
	    "\"TuneD network-throughput profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-throughput/tuned.conf",
	    "/proc/sys/net/ipv4/tcp_slow_start_after_idle", "0", "0",
	    "sysctl -w net.ipv4.tcp_slow_start_after_idle=0 (safe)", 0 },
	  run_slow_start_idle },
	{ { "net.somaxconn", "network", "the listen backlog should be large enough",
	    "a short listen backlog drops connections when many ranks or clients connect at once; "
	    "docs/checks.md#net.somaxconn; \"IP Sysctl\", https://docs.kernel.org/networking/ip-sysctl.html; "
	    "\"TuneD throughput-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/throughput-performance/tuned.conf",
	    "/proc/sys/net/core/somaxconn", ">= 2048", ">= 4096", "sysctl -w net.core.somaxconn=4096 (safe)", 0 },
	  run_somaxconn },
	{ { "net.netdev-backlog", "network", "the input backlog should keep up with 25 Gb/s+ NICs",
	    "a short input backlog drops packets from 25 Gb/s and faster NICs; "
	    "docs/checks.md#net.netdev-backlog; "
	    "\"Documentation for /proc/sys/net/\", https://docs.kernel.org/admin-guide/sysctl/net.html#netdev-max-backlog",
	    "/proc/sys/net/core/netdev_max_backlog, NIC line rates", ">= 250000 with a NIC of 25 Gb/s or more",
	    ">= 250000 with a NIC of 25 Gb/s or more", "sysctl -w net.core.netdev_max_backlog=250000 (safe)", 0 },
	  run_netdev_backlog },
	{ { "net.mtu", "network", "RDMA interfaces should use large MTUs, equal across their fabric",
	    "RoCE's MTU is the largest of 1024, 2048, 4096 below the interface's; "
	    "mismatched MTUs across a fabric drop traffic; docs/checks.md#net.mtu; "
	    "\"IBM Linux on Z: Setting the MTU size (RoCE)\", https://www.ibm.com/docs/en/linux-on-systems?topic=functions-set-mtu; "
	    "\"NCCL Troubleshooting: Networking\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/networking_troubleshooting.html",
	    "/sys/class/net/IF/mtu of every RDMA-backed interface",
	    "RoCE >= 4200 (9000 customary), IPoIB >= 4092; one MTU per fabric", "same as training",
	    "ip link set dev IF mtu 9000 and persist it in netplan/NM, matching the switch (gpufeed tune "
	    "--only net.mtu applies it)", 0 },
	  run_mtu },
	{ { "net.ib-port", "network", "every RDMA port should be ACTIVE and LinkUp at its fabric's rate",
	    "a port that is down or trained below its rate slows or breaks NCCL's RDMA traffic; "
	    "docs/checks.md#net.ib-port; "
	    "\"NCCL Troubleshooting: Networking\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/networking_troubleshooting.html",
	    "/sys/class/infiniband/DEV/ports/N/{state,phys_state,rate}", "ACTIVE, LinkUp, full rate", "same as training",
	    "check the cable, transceiver and switch port; start a subnet manager on InfiniBand (advice)", 0 },
	  run_ib_port },
	{ { "net.peermem", "network", "GPUDirect RDMA should be available (nvidia_peermem or DMA-BUF)",
	    "without GPUDirect RDMA, NIC traffic is staged through host memory; docs/checks.md#net.peermem; "
	    "\"NCCL Troubleshooting: GPU troubleshooting\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html; "
	    "\"NVIDIA GPU Operator: GPUDirect RDMA and GPUDirect Storage\", https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html",
	    "/sys/module/nvidia_peermem, /sys/module/nv_peer_mem, /proc/driver/nvidia/version",
	    "loaded with GPUs and RDMA NICs (or DMA-BUF)", "loaded if multi-node serving uses RDMA",
	    "modprobe nvidia-peermem; add it to /etc/modules-load.d (advice)", GF_CHECK_NEEDS_GPU },
	  run_peermem },
	{ { "net.nvidia-fs", "network", "the GPUDirect Storage module should be loaded where GDS applies",
	    "GPUDirect Storage needs nvidia-fs to DMA from NVMe straight to GPU memory; "
	    "docs/checks.md#net.nvidia-fs; "
	    "\"NVIDIA GPUDirect Storage Installation and Troubleshooting Guide\", https://docs.nvidia.com/gpudirect-storage/troubleshooting-guide/index.html; "
	    "\"NVIDIA GPU Operator: GPUDirect RDMA and GPUDirect Storage\", https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html",
	    "/sys/module/nvidia_fs, /etc/cufile.json ($CUFILE_ENV_PATH_JSON), GPU-NVMe PCIe links",
	    "loaded when GDS is configured or NVMe shares a switch with a GPU", "same as training",
	    "modprobe nvidia-fs; add it to /etc/modules-load.d (advice)", GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_nvidia_fs },
	GF_CHECK_END,
};
