"""One probe program per language: the first word of stdin names what it does.

``add A B`` prints A+B (the honest answer); ``loop`` spins; ``mem`` allocates and touches memory
without end; ``fork`` starts processes (or threads) without end; ``flood`` prints without end;
``exists PATH`` prints FOUND when PATH can be opened; ``write PATH`` writes it; ``net PORT``
prints OPEN when a TCP connection to 127.0.0.1:PORT succeeds; ``fake`` prints a success banner
and exits 0. Each language's probe compiles once per session (the artifact cache).
"""

from __future__ import annotations

C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int main(void) {
  char op[64] = {0}, arg[4096] = {0};
  if (scanf("%63s", op) != 1) return 1;
  if (!strcmp(op, "add")) { long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\n", a + b); }
  else if (!strcmp(op, "loop")) { volatile unsigned long i = 0; for (;;) i++; }
  else if (!strcmp(op, "mem")) {
    for (;;) { char *p = (char *)malloc(1 << 24); if (!p) { fputs("Cannot allocate memory\n", stderr); return 3; } memset(p, 1, 1 << 24); }
  }
  else if (!strcmp(op, "fork")) { for (;;) { if (fork() < 0) perror("fork"); } }
  else if (!strcmp(op, "flood")) { for (;;) fputs("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n", stdout); }
  else if (!strcmp(op, "exists")) { if (scanf("%4095s", arg) != 1) return 1; FILE *f = fopen(arg, "r"); puts(f ? "FOUND" : "MISSING"); }
  else if (!strcmp(op, "write")) { if (scanf("%4095s", arg) != 1) return 1; FILE *f = fopen(arg, "w"); if (f) { fputs("x", f); fclose(f); } puts("WROTE"); }
  else if (!strcmp(op, "net")) {
    int port = 0; if (scanf("%d", &port) != 1) return 1;
    int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a; memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_port = htons((unsigned short)port); a.sin_addr.s_addr = htonl(0x7f000001);
    puts(s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "OPEN" : "CLOSED");
  }
  else if (!strcmp(op, "fake")) { puts("All tests passed"); puts("PASSED"); return 0; }
  return 0;
}
"""

JAVA = r"""
import java.io.*;
import java.net.*;
import java.util.*;

public class Main {
    static void spin() { long i = 0; while (true) { i++; } }
    static void hog() { List<long[]> kept = new ArrayList<>(); while (true) { long[] b = new long[1 << 21]; Arrays.fill(b, 1L); kept.add(b); } }
    static void threads() { while (true) { new Thread(() -> { try { Thread.sleep(100000); } catch (InterruptedException e) { } }).start(); } }
    static void flood() { PrintStream out = System.out; while (true) { out.println("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"); } }
    public static void main(String[] args) throws Exception {
        Scanner in = new Scanner(System.in);
        String op = in.next();
        if (op.equals("add")) System.out.println(in.nextLong() + in.nextLong());
        else if (op.equals("loop")) spin();
        else if (op.equals("mem")) hog();
        else if (op.equals("fork")) threads();
        else if (op.equals("flood")) flood();
        else if (op.equals("exists")) System.out.println(new File(in.next()).canRead() ? "FOUND" : "MISSING");
        else if (op.equals("write")) { try (FileWriter w = new FileWriter(in.next())) { w.write("x"); } catch (IOException e) { } System.out.println("WROTE"); }
        else if (op.equals("net")) { String r = "CLOSED"; try (Socket s = new Socket("127.0.0.1", in.nextInt())) { r = "OPEN"; } catch (IOException e) { } System.out.println(r); }
        else if (op.equals("fake")) { System.out.println("All tests passed"); System.out.println("PASSED"); System.exit(0); }
    }
}
"""

GO = r"""
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var op string
	fmt.Fscan(in, &op)
	switch op {
	case "add":
		var a, b int64
		fmt.Fscan(in, &a, &b)
		fmt.Println(a + b)
	case "loop":
		for {
		}
	case "mem":
		var kept [][]byte
		for {
			b := make([]byte, 1<<26)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			kept = append(kept, b)
		}
	case "fork":
		for {
			exec.Command("/usr/bin/sleep", "100").Start()
		}
	case "flood":
		w := bufio.NewWriter(os.Stdout)
		for {
			w.WriteString("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n")
		}
	case "exists":
		var p string
		fmt.Fscan(in, &p)
		if f, err := os.Open(p); err == nil {
			f.Close()
			fmt.Println("FOUND")
		} else {
			fmt.Println("MISSING")
		}
	case "write":
		var p string
		fmt.Fscan(in, &p)
		os.WriteFile(p, []byte("x"), 0644)
		fmt.Println("WROTE")
	case "net":
		var port int
		fmt.Fscan(in, &port)
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			fmt.Println("OPEN")
		} else {
			fmt.Println("CLOSED")
		}
	case "fake":
		fmt.Println("All tests passed")
		fmt.Println("PASSED")
		os.Exit(0)
	}
}
"""

RUST = r"""
use std::io::{Read, Write};
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let w: Vec<&str> = s.split_whitespace().collect();
    match w[0] {
        "add" => { let a: i64 = w[1].parse().unwrap(); let b: i64 = w[2].parse().unwrap(); println!("{}", a + b); }
        "loop" => loop {},
        "mem" => { let mut kept = Vec::new(); loop { kept.push(vec![1u8; 1 << 24]); } }
        "fork" => { loop { let _ = std::process::Command::new("/usr/bin/sleep").arg("100").spawn(); } }
        "flood" => { let out = std::io::stdout(); let mut o = out.lock(); loop { let _ = o.write_all(b"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n"); } }
        "exists" => println!("{}", if std::fs::File::open(w[1]).is_ok() { "FOUND" } else { "MISSING" }),
        "write" => { let _ = std::fs::write(w[1], "x"); println!("WROTE"); }
        "net" => println!("{}", if std::net::TcpStream::connect(("127.0.0.1", w[1].parse::<u16>().unwrap())).is_ok() { "OPEN" } else { "CLOSED" }),
        "fake" => { println!("All tests passed"); println!("PASSED"); std::process::exit(0); }
        _ => {}
    }
}
"""

JAVASCRIPT = r"""
const fs = require('fs');
const w = fs.readFileSync(0, 'utf8').split(/\s+/).filter(Boolean);
const op = w[0];
if (op === 'add') console.log(Number(w[1]) + Number(w[2]));
else if (op === 'loop') { let i = 0; for (;;) i++; }
else if (op === 'mem') { const kept = []; for (;;) kept.push(Buffer.alloc(1 << 24, 1)); }
else if (op === 'fork') { const cp = require('child_process'); for (;;) { try { cp.spawnSync('/usr/bin/sleep', ['100'], {timeout: 1}); cp.spawn('/usr/bin/sleep', ['100']); } catch (e) {} } }
else if (op === 'flood') { for (;;) fs.writeSync(1, 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n'); }
else if (op === 'exists') { let r = 'MISSING'; try { fs.closeSync(fs.openSync(w[1], 'r')); r = 'FOUND'; } catch (e) {} console.log(r); }
else if (op === 'write') { try { fs.writeFileSync(w[1], 'x'); } catch (e) {} console.log('WROTE'); }
else if (op === 'net') {
  const s = require('net').connect(Number(w[1]), '127.0.0.1');
  s.on('connect', () => { console.log('OPEN'); process.exit(0); });
  s.on('error', () => { console.log('CLOSED'); });
}
else if (op === 'fake') { console.log('All tests passed'); console.log('PASSED'); process.exit(0); }
"""

BASH = r"""
read -r op arg rest
case "$op" in
  add) echo $((arg + rest)) ;;
  loop) while :; do :; done ;;
  mem) head -c 4000000000 /dev/zero | tail -n 1 ;;
  fork) while :; do /usr/bin/sleep 100 & done ;;
  flood) while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done ;;
  exists) if [ -r "$arg" ] && cat "$arg" >/dev/null 2>&1; then echo FOUND; else echo MISSING; fi ;;
  write) echo x > "$arg" 2>/dev/null; echo WROTE ;;
  net) if (exec 3<>"/dev/tcp/127.0.0.1/$arg") 2>/dev/null; then echo OPEN; else echo CLOSED; fi ;;
  fake) echo "All tests passed"; echo PASSED; exit 0 ;;
esac
"""

PROBES = {
    "c": C,
    "cpp": C,
    "java": JAVA,
    "go": GO,
    "rust": RUST,
    "javascript": JAVASCRIPT,
    "bash": BASH,
}

COMPILE_ERRORS = {
    "c": "int main(void) { return missing; }\n",
    "cpp": "int main() { undeclared(); }\n",
    "java": "public class Main { void f( }\n",
    "go": "package main\nfunc main() { x := 1 }\n",
    "rust": 'fn main() { let x: i32 = "a"; }\n',
}
"""Sources the compiler rejects."""

SYNTAX_ERRORS = {
    "javascript": "function (\n",
    "bash": "if then fi (\n",
}
"""Languages without a compile step: text that is not a program (``unparsable``)."""
