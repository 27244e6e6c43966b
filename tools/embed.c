/* SPDX-License-Identifier: Apache-2.0 */
/* Build tool: writes a C file defining `const char NAME[]` (NUL-terminated) and
 * `const size_t NAME_len` from the bytes on stdin, so the binaries embed a file byte for byte. */
#include <stdio.h>

int main(int argc, char **argv)
{
    int c;
    unsigned long n = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: embed NAME < file > out.c\n");
        return 2;
    }
    printf("#include <stddef.h>\nconst char %s[] = {\n", argv[1]);
    while ((c = getchar()) != EOF) {
        printf("%d,%s", c, (n % 16 == 15) ? "\n" : "");
        n++;
    }
    printf("0};\nconst size_t %s_len = %lu;\n", argv[1], n);
    return 0;
}
