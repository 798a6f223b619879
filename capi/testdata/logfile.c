/* logfile LOG: the errors logged to a file (rs2_log_to_file) and to the
   console, until rs2_reset_logger; prints the file at the end. As
   librealsense 2.56.5 (testdata/logfile.librealsense.out). */
#include <stdio.h>
#include "rs2test.h"

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	rs2_log_to_file(RS2_LOG_SEVERITY_ERROR, argv[1], &e); show("log to file", e); e = NULL;
	rs2_get_frame_width(NULL, &e); show("null frame", e); e = NULL;
	rs2_log_to_console(RS2_LOG_SEVERITY_WARN, &e); show("log to console", e); e = NULL;
	rs2_get_frame_width(NULL, &e); show("null frame", e); e = NULL;
	rs2_reset_logger(&e); show("reset", e); e = NULL;
	rs2_get_frame_width(NULL, &e); show("null frame", e); e = NULL;
	printf("log file:\n");
	FILE* f = fopen(argv[1], "r");
	if (!f) return 1;
	char line[1024];
	while (fgets(line, sizeof line, f)) fputs(line, stdout);
	fclose(f);
	return 0;
}
