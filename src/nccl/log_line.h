/* One line of NCCL_DEBUG=INFO output (or of PyTorch's around it) as an
 * event: what the line says, stripped of the prefixes in front of it. */
#ifndef GF_NCCL_LOG_LINE_H
#define GF_NCCL_LOG_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include <gpufeed/nccl.h>

/* Lines longer than this are read up to it (NCCL's own lines are far
 * shorter; anything past it is not what the reader looks for). */
#define NCCL_LINE_MAX 2048

enum nccl_ev_kind {
	EV_NONE = 0,		/* nothing the analysis uses */
	EV_VERSION,		/* a: "2.28.9+cuda13.0" */
	EV_INIT,		/* a: comm pointer, b: commId; rank nranks dev busid; flag 1 COMPLETE */
	EV_COMM,		/* "comm 0x.. rank R nRanks N nNodes M ...": rank nranks, count = nNodes */
	EV_TRANSPORT,		/* channel: rank[dev] -> peer[peer_dev] via a */
	EV_RING,		/* "Channel 00/04 : 0 1": channel, count = channels, text = order */
	EV_TREE,		/* "Trees [0] ...": text */
	EV_CHANNELS,		/* "N coll channels, ... K nvls channels": count = coll, peer = nvls */
	EV_ALGO,		/* a: "AllReduce", b: "RING/SIMPLE", choice: all of it */
	EV_ENV,			/* a: NCCL_xxx, b: value */
	EV_GDR,			/* flag 1 enabled; a: the NIC */
	EV_NVLS,		/* text: what NCCL said about NVLS */
	EV_AFFINITY,		/* text: CPU list or mask NCCL took; flag 1 when GPU affinity empty */
	EV_NET,			/* a: "Socket", "IB", a plugin's name */
	EV_NO_IB,		/* "NET/IB : No device found." */
	EV_NET_IF,		/* a: "IB" or "Socket", text: "[0]eth0:192.0.2.2<0>" (NET/x : Using ...) */
	EV_WARN,		/* text: an NCCL WARN line's message */
	EV_TORCH_ERROR,		/* text: PyTorch's NCCL error or watchdog timeout */
	EV_ENQUEUED,		/* count: PyTorch's "last enqueued (NCCL) work: N" */
};

struct nccl_event {
	enum nccl_ev_kind kind;
	/* Where it came from.  prefix_rank: the launcher's "[rank0]:",
	 * "[default0]:", "[0] " (-1 none); host/pid/dev from NCCL's own
	 * "host:pid:tid [dev]" (pid -1 when the line has none). */
	int prefix_rank;
	char host[64];
	long pid;
	int dev;
	/* What it says (per kind above; -1 unknown). */
	int rank, nranks, channel, peer, peer_dev, count, flag;
	char busid[20];		/* "0000:00:06.0" from NCCL's busId */
	char a[64], b[64];
	char text[256];
	struct gf_nccl_choice choice;	/* EV_ALGO */
};

/* Parses line (len bytes, any byte) into *ev.  Always fills *ev (kind
 * EV_NONE for a line of no interest); strings in it are printable ASCII. */
void gf_nccl_line_parse(const char *line, size_t len, struct nccl_event *ev);

/* Copies src into dst (size > 0) with every byte outside printable ASCII as
 * '?': what a log holds may reach a terminal or a JSON string. */
void gf_nccl_clean_copy(char *dst, size_t size, const char *src, size_t len);

#endif
