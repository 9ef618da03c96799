/* A stand-in library for tests/unit/test_dl.c: the generic loader
 * (src/core/dl.c) tried on symbols no vendor library has, so its tests do
 * not depend on NVML's.  It has a versioned function and the old name of a
 * renamed one, like the vendors' libraries:
 *   dltest_add_v2     present   (dltest_add is absent: only the new name)
 *   dltest_old_name   present   (the "renamed" function's old name)
 *   dltest_missing    absent    (what a required-symbol test asks for)
 *
 * fake-soname: libgpufeed-dltest.so.1 */

int dltest_add_v2(int a, int b);
int dltest_old_name(void);

int dltest_add_v2(int a, int b)
{
	return a + b;
}

int dltest_old_name(void)
{
	return 42;
}
