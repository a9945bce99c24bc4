/* Loaded with LD_PRELOAD into a server that cannot be told to: turns Nagle's algorithm off
 * (TCP_NODELAY) on every socket the server accepts. InspIRCd 3 leaves it on, and its small
 * writes then wait on the client's delayed ACKs (a few hundred messages a second at most).
 * Built by scripts/bench/servers.sh: cc -O2 -shared -fPIC -o nodelay.so nodelay.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static int nodelay(int fd) {
    int on = 1;
    if (fd >= 0) (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on); /* fails harmlessly on non-TCP */
    return fd;
}

int accept(int fd, struct sockaddr *address, socklen_t *length) {
    static int (*next)(int, struct sockaddr *, socklen_t *);
    if (!next) next = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
    return nodelay(next(fd, address, length));
}

int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    static int (*next)(int, struct sockaddr *, socklen_t *, int);
    if (!next) next = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
    return nodelay(next(fd, address, length, flags));
}
