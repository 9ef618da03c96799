/* The machine as a picture (topo --svg, --dot, report --html): what is
 * drawn, decided once from the model, and drawn twice (picture_svg.c lays
 * it out itself; picture_dot.c leaves that to graphviz).
 *
 * What is drawn is what lstopo draws, cut to what feeds a GPU: packages
 * and their NUMA nodes; under each node, one column per host bridge with
 * its PCIe tree as an indented list, where only the bridges that fan out
 * (switches, ports with several functions) get a box of their own and a
 * chain of single bridges folds into the link that crosses it; GPUs, NICs,
 * NVMe and other storage, NVSwitches; the NVLink fabric.  Every link
 * carries its narrowest rate and what limits it, and every finding of the
 * model is pinned to the box it names. */
#ifndef GF_TOPO_PICTURE_H
#define GF_TOPO_PICTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/topo.h>

enum gf_pic_kind {
	GF_PIC_HOST_BRIDGE = 0,
	GF_PIC_FANOUT,		/* a bridge with several devices below it */
	GF_PIC_GPU,
	GF_PIC_NIC,
	GF_PIC_NVME,
	GF_PIC_STORAGE,
	GF_PIC_NVSWITCH,
};

/* What the link into a box is limited by, beyond its rate. */
enum gf_pic_state {
	GF_PIC_LINK_OK = 0,
	GF_PIC_LINK_UNKNOWN,	/* a link on the way reports no rate */
	GF_PIC_LINK_DEGRADED,	/* a finding: narrower or slower than it can be */
	GF_PIC_LINK_CAPPED,	/* a NIC faster than the PCIe behind it */
};

/* Labels are cut to this many bytes (a recording may hold anything). */
#define GF_PIC_LABEL 60

struct gf_pic_box {
	enum gf_pic_kind kind;
	int pci;			/* t->pci index, -1 for a host bridge */
	int hb;				/* t->host_bridges index */
	int parent;			/* box index, -1 for a host bridge */
	int depth;			/* in its column: the host bridge is 0 */
	char name[24];			/* "GPU0", "NIC3", "NVME0", else the address */
	char title[GF_PIC_LABEL + 4];
	char detail[GF_PIC_LABEL + 4];
	/* The link from the parent box: the narrowest PCIe link on the way. */
	double gb_per_s;		/* 0: unknown */
	char link[GF_PIC_LABEL + 4];	/* "PCIe Gen5 x16, 63.0 GB/s" */
	enum gf_pic_state state;
	char note[GF_PIC_LABEL + 4];	/* why, when state is not OK */
	/* GPUs: the NVLink side. */
	double nvlink_gb_per_s;		/* 0: none */
	char nvlink[GF_PIC_LABEL + 4];	/* "NVLink 4.0 x18, 450 GB/s" */
	bool nvlink_degraded;
	bool locality_unknown;		/* a GPU whose NUMA node is unknown */
	int gpu;			/* t->gpus index, -1 */
};

/* One column: a host bridge and the boxes below it, in depth-first order. */
struct gf_pic_column {
	int node;			/* NUMA node id, -1 unknown */
	int first, n;			/* boxes[first .. first+n-1] */
	int ngpus;			/* GPU boxes in it (their NVLink lines) */
};

/* A NUMA node (or the "unknown" group) and the columns under it. */
struct gf_pic_node {
	int id;				/* -1: devices of unknown locality */
	int package;			/* -1 unknown */
	int first_col, ncols;
};

struct gf_pic_pin {
	int finding;			/* t->findings index */
	int box;			/* -1: nowhere to pin it */
};

/* A GPU pair linked by NVLink directly (no NVSwitch): matrix entries. */
struct gf_pic_pair {
	int a, b;			/* t->gpus indices */
	int nvlinks;
};

struct gf_picture {
	const struct gf_topo *t;
	struct gf_pic_box *box;
	int nbox;
	struct gf_pic_column *col;
	int ncol;
	struct gf_pic_node *node;
	int nnode;
	struct gf_pic_pin *pin;		/* one per finding, in the model's order */
	int npin;
	struct gf_pic_pair *pair;
	int npair;
	bool fabric;			/* draw the NVLink fabric */
	char fabric_title[GF_PIC_LABEL + 4];
};

/* 0, or -ENOMEM.  Free with gf_picture_free (also after a failure). */
int gf_picture_build(const struct gf_topo *t, struct gf_picture *p);
void gf_picture_free(struct gf_picture *p);
/* Colours and widths both drawings share: a link's colour by its rate
 * (grey unknown), red where a finding limits it; wider lines for faster
 * links; a finding's colour by its severity. */
#define GF_PIC_RED "#cf222e"
const char *gf_pic_rate_colour(double gb_per_s);
const char *gf_pic_link_colour(const struct gf_pic_box *x);
double gf_pic_rate_width(double gb_per_s);
const char *gf_pic_severity_colour(enum gf_severity s);
/* The picture drawn: SVG laid out here (picture_svg.c), or the graph in
 * graphviz's DOT language for users who have graphviz (picture_dot.c).
 * 0, -EIO when writing failed, -ENOMEM. */
int gf_picture_write_svg(const struct gf_picture *p, FILE *f);
int gf_picture_write_dot(const struct gf_picture *p, FILE *f);
/* The number a finding's pin shows (1-based position among the findings). */
static inline int gf_pic_pin_number(int finding) { return finding + 1; }

#endif
