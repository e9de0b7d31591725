#!/usr/bin/env python3
"""Tests of scripts/function_lengths.py's scanners on inputs built to fool
a naive brace counter: braces in raw strings, strings, character literals,
comments and macros; lambdas; initialiser lists; member initialisers;
here-documents in shell. Run by ctest (function_lengths_scanner)."""
import io
import os
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import function_lengths as fl  # noqa: E402


def cxx(src):
    """{name: (start line, length)} of the functions in src."""
    return {f.name: (f.start_line, f.length)
            for f in fl.cxx_functions(textwrap.dedent(src))}


def shell(src):
    return {f.name: (f.start_line, f.length)
            for f in fl.shell_functions(textwrap.dedent(src))}


class CxxLiterals(unittest.TestCase):
    def test_braces_in_raw_strings_do_not_count(self):
        found = cxx('''\
            int F() {
              const char* s = R"({{{ )" ")";
              const char* t = R"x(}}} )" still inside )x";
              const char* u = R"(say "{" twice {)";
              return 0;
            }
            int G() { return 1; }
            ''')
        self.assertEqual(found, {"F": (1, 6), "G": (7, 1)})

    def test_braces_in_comments_strings_and_chars_do_not_count(self):
        found = cxx('''\
            // int Fake() {
            /* } { */
            int F() {
              char open = '{', close = '}', quote = '\\'';
              std::string s = "}\\"{";
              int n = 1'000'000;  // a digit separator is no character literal
              return s.size() + n;  /* } */
            }
            ''')
        self.assertEqual(found, {"F": (3, 6)})

    def test_preprocessor_lines_with_braces_are_skipped(self):
        found = cxx('''\
            #define BLOCK(x) { x; \\
              }
            #include <map>
            int F() {
              return 0;
            }
            ''')
        self.assertEqual(found, {"F": (4, 3)})


class CxxScopes(unittest.TestCase):
    def test_namespaces_classes_enums_and_extern_c_are_not_functions(self):
        found = cxx('''\
            namespace a::b {
            namespace {
            enum class Kind : int { kOne, kTwo };
            struct Point {
              int x{0};
              int y = 1;
              int Sum() const { return x + y; }
            };
            template <class T>
            class Box : public Base<decltype(T())> {
             public:
              T Get() const noexcept {
                return value_;
              }
             private:
              T value_{};
            };
            }  // namespace
            extern "C" {
            int Exported(int x) { return x; }
            }
            }  // namespace a::b
            ''')
        self.assertEqual(found, {"Sum": (7, 1), "Get": (12, 3), "Exported": (20, 1)})

    def test_constructor_member_initialisers_with_braces(self):
        found = cxx('''\
            Widget::Widget(int a, Thing t)
                : a_(a),
                  t_{std::move(t)},
                  list_{1, 2, 3} {
              Start();
            }
            ''')
        self.assertEqual(found, {"Widget::Widget": (1, 3)})

    def test_a_lambda_in_member_initialisers_leaves_the_body_measured(self):
        found = fl.cxx_functions(textwrap.dedent('''\
            Writer::Writer(Store& s) : store_(s), thread_([this] { Loop(); }) {
              Start();
              Run();
            }
            '''))
        self.assertEqual([(f.name, f.start_line, f.length) for f in found],
                         [("lambda", 1, 1), ("Writer::Writer", 1, 4)])

    def test_initialiser_lists_are_not_functions_but_lambdas_in_them_are(self):
        found = cxx('''\
            const std::vector<Spec> kSpecs = {
                {"a", 1},
                {"b", [](int x) {
                   return x;
                 }},
            };
            int table[] = {1, 2};
            auto kNoArgs = [] {
              return 2;
            };
            ''')
        self.assertEqual(found, {"lambda": (8, 3)})
        self.assertEqual(len(fl.cxx_functions(textwrap.dedent('''\
            const std::vector<Spec> kSpecs = {
                {"a", [](int x) { return x; }},
                {"b", [&](int x) -> int { return x; }},
            };'''))), 2)

    def test_qualifiers_trailing_return_and_operators(self):
        found = cxx('''\
            struct S {
              auto Make() const -> std::vector<int> {
                return {};
              }
              bool operator()(int x) const { return x > 0; }
              S& operator=(const S&) & = default;
              bool operator<(const S& o) const {
                return false;
              }
            };
            ''')
        self.assertEqual(found, {"Make": (2, 3), "operator()": (5, 1), "operator<": (7, 3)})


class CxxFunctions(unittest.TestCase):
    def test_lambdas_and_local_classes_count_in_their_function(self):
        found = cxx('''\
            int Outer() {
              auto f = [](int x) {
                return x;
              };
              struct Local {
                int M() { return 1; }
              };
              return f(Local{}.M());
            }
            ''')
        self.assertEqual(found, {"Outer": (1, 9)})

    def test_test_cases_are_functions_and_subcases_part_of_them(self):
        found = cxx('''\
            TEST_CASE("a { tricky } name") {
              SUBCASE("one") {
                CHECK(true);
              }
            }
            ''')
        self.assertEqual(found, {'TEST_CASE("a { tricky } name")': (1, 5)})

    def test_the_line_reported_is_the_declarations_after_its_template_head(self):
        found = cxx('''\
            template <typename T,
                      typename U>
            T Convert(U u)
            {
              return T(u);
            }
            ''')
        self.assertEqual(found, {"Convert": (3, 3)})


class Shell(unittest.TestCase):
    def test_functions_end_at_the_brace_of_their_indentation(self):
        found = shell('''\
            #!/usr/bin/env bash
            one() { echo 1; }
            two() {
              if true; then
                echo "}"
              fi
            }
            function three {
              inner() {
                :
              }
            } >&2
            ''')
        self.assertEqual(found, {"one": (2, 1), "two": (3, 5), "three": (8, 5)})

    def test_here_documents_are_skipped(self):
        found = shell('''\
            cat >f <<-EOF
            fake() {
            EOF
            write() {
              cat <<'EOF'
            }
            fake() {
            EOF
              read -r x <<< "$y"
            }
            ''')
        self.assertEqual(found, {"write": (4, 7)})


class Command(unittest.TestCase):
    def run_main(self, files, limit):
        with tempfile.TemporaryDirectory() as root:
            for name, text in files.items():
                path = os.path.join(root, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            out = io.StringIO()
            with redirect_stdout(out):
                rc = fl.main(["--root", root, "--limit", str(limit), "src", "sh"])
            return rc, out.getvalue()

    def test_reports_file_line_and_length_and_fails_over_the_limit(self):
        long_body = "int Long() {\n" + "  f();\n" * 5 + "}\n"
        script = "#!/bin/bash\nlong() {\n" + "  :\n" * 5 + "}\n"
        rc, out = self.run_main({"src/a.cc": "int Short() { return 0; }\n" + long_body,
                                 "sh/run": script}, limit=6)
        self.assertEqual(rc, 1)
        self.assertIn("src/a.cc:2: Long: 7 lines", out)
        self.assertIn("sh/run:2: long: 7 lines", out)
        self.assertNotIn("Short", out)

    def test_passes_at_the_limit(self):
        rc, out = self.run_main({"src/a.cc": "int F() {\n" + "  f();\n" * 4 + "}\n"}, limit=6)
        self.assertEqual(rc, 0)
        self.assertIn("0 function(s) over 6 lines", out)


if __name__ == "__main__":
    unittest.main()
