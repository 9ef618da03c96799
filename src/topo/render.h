/* Rendering pieces of the model, shared by `topo` and the features above it
 * (report, later check/plan): JSON objects and human sections. */
#ifndef GF_TOPO_RENDER_H
#define GF_TOPO_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include <gpufeed/topo.h>

/* JSON pieces shared by topo and report (topo_json.c). */
json_t *gf_json_machine(const struct gf_topo *t);
json_t *gf_json_matrix(const struct gf_topo *t);
json_t *gf_json_other_devices(const struct gf_topo *t);
json_t *gf_json_paths(const struct gf_topo *t);
json_t *gf_json_findings(const struct gf_topo *t);
json_t *gf_json_warnings(const struct gf_topo *t);
json_t *gf_json_gpus(const struct gf_topo *t);
int gf_json_dump(json_t *root, FILE *f);
/* Human pieces shared by topo and report (topo_text.c). */
void gf_print_matrix(const struct gf_topo *t, FILE *f);
/* Every path that feeds a GPU, or only matrix entry `gpu`'s (-1: all). */
void gf_print_paths(const struct gf_topo *t, FILE *f, int gpu);
void gf_print_findings(const struct gf_topo *t, FILE *f, bool color);
void gf_print_findings_width(const struct gf_topo *t, FILE *f, bool color, int width);
void gf_print_summary(const struct gf_topo *t, FILE *f);
/* "NIC0" -> name of the device behind a matrix entry, for legends. */
const char *gf_matrix_dev_desc(const struct gf_topo *t, int i, char *buf, size_t size);
/* A path's figure in text: "31.5", "unknown" or "down". */
const char *gf_path_rate_text(const struct gf_path *p, char *buf, size_t size);
/* The name a PCI device goes by in the matrix ("GPU3", "NIC0", "NVME1"),
 * else its address. */
const char *gf_pci_dev_name(const struct gf_topo *t, int pci, char *buf, size_t size);
/* Control characters of machine strings made harmless ('?'), in place. */
void gf_sanitize_text(char *s);
/* Text output built in memory, sanitized as a whole when closed onto out. */
struct gf_text {
	FILE *f;
	char *buf;
	size_t len;
};
FILE *gf_text_open(struct gf_text *x);
int gf_text_close(struct gf_text *x, FILE *out);
/* Human sizes. */
void gf_fmt_bytes(unsigned long long b, char *buf, size_t size);

#endif
