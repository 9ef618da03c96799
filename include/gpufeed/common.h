/* Shared macros of the public headers. */
#ifndef GPUFEED_COMMON_H
#define GPUFEED_COMMON_H

#if defined(__GNUC__) || defined(__clang__)
#define GF_API __attribute__((visibility("default")))
#else
#define GF_API
#endif

#endif
