/* optvalue: the option-value interface (rs2_get_option_value,
   rs2_get_option_value_from_list, rs2_set_option_value,
   rs2_get_option_value_description) on the first sensor of a bag and on a
   colorizer, next to what rs2_get_option gives. One line each. */
#include <stdio.h>
#include "rs2test.h"

/* show_brief is rs2test.h's show without the arguments. */
static void show_brief(const char* what, rs2_error* e) {
	if (!e) {
		printf("%s: no error\n", what);
		return;
	}
	printf("%s: %s | %s | %s\n", what, rs2_get_failed_function(e),
		rs2_exception_type_to_string(rs2_get_librealsense_exception_type(e)), rs2_get_error_message(e));
	rs2_free_error(e);
}

static void print_value(int k, const char* how, const rs2_option_value* v) {
	printf("%s %d %s %s %d %.9g\n", how, k, rs2_option_to_string(v->id), rs2_option_type_to_string(v->type), v->is_valid,
		v->is_valid ? v->as_float : 0.f);
}

/* print_values prints each option of o (object k) three ways: its value,
   its value in the options list, and rs2_get_option's. */
static void print_values(int k, rs2_options* o) {
	rs2_error* e = NULL;
	rs2_options_list* ol = rs2_get_options_list(o, &e); check(e);
	int n = rs2_get_options_list_size(ol, &e); check(e);
	for (int i = 0; i < n; i++) {
		const rs2_option_value* listed = rs2_get_option_value_from_list(ol, i, &e); check(e);
		const rs2_option_value* v = rs2_get_option_value(o, listed->id, &e); check(e);
		print_value(k, "value", v);
		rs2_delete_option_value(v);
		print_value(k, "listed", listed);
		printf("get %d %s %.9g\n", k, rs2_option_to_string(listed->id), rs2_get_option(o, listed->id, &e)); check(e);
		rs2_delete_option_value(listed);
	}
	rs2_delete_options_list(ol);
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	struct bag b = open_bag(argv[1]);
	rs2_sensor* s = b.s;
	rs2_processing_block* col = rs2_create_colorizer(&e); check(e);
	print_values(0, (rs2_options*)s);
	print_values(1, (rs2_options*)col);
	for (int i = 0; i < 3; i++) {
		const char* d = rs2_get_option_value_description((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, (float)i, &e); check(e);
		printf("scheme %d %s\n", i, d ? d : "(null)");
	}
	const char* d = rs2_get_option_value_description((rs2_options*)col, RS2_OPTION_MIN_DISTANCE, 1, &e); check(e);
	printf("min distance 1 %s\n", d ? d : "(null)");
	rs2_get_option_value_description((rs2_options*)col, RS2_OPTION_WHITE_BALANCE, 1, &e); show_brief("describe unsupported", e); e = NULL;

	rs2_option_value v = {0};
	v.id = RS2_OPTION_COLOR_SCHEME;
	v.type = RS2_OPTION_TYPE_FLOAT;
	v.is_valid = 1;
	v.as_float = 2;
	rs2_set_option_value((rs2_options*)col, &v, &e); show_brief("set scheme", e); e = NULL;
	printf("scheme now %.9g\n", rs2_get_option((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, &e)); check(e);
	v.as_float = 1000;
	rs2_set_option_value((rs2_options*)col, &v, &e); show_brief("set out of range", e); e = NULL;
	v.as_float = 1;
	v.type = RS2_OPTION_TYPE_INTEGER;
	rs2_set_option_value((rs2_options*)col, &v, &e); show_brief("set as integer", e); e = NULL;
	v.id = RS2_OPTION_WHITE_BALANCE;
	v.type = RS2_OPTION_TYPE_FLOAT;
	rs2_set_option_value((rs2_options*)col, &v, &e); show_brief("set unsupported", e); e = NULL;
	rs2_get_option_value((rs2_options*)s, RS2_OPTION_WHITE_BALANCE, &e); show_brief("value unsupported", e); e = NULL;
	const rs2_option_value* ev = rs2_get_option_value((rs2_options*)s, RS2_OPTION_EXPOSURE, &e); check(e);
	rs2_set_option_value((rs2_options*)s, ev, &e); show_brief("set read-only", e); e = NULL;
	rs2_delete_option_value(ev);
	printf("scheme finally %.9g\n", rs2_get_option((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, &e)); check(e);

	rs2_delete_processing_block(col);
	close_bag(&b);
	return 0;
}
