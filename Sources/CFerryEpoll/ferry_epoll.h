// epoll, which Swift's Glibc module leaves out: `Platform/EventPoll.swift` waits on thousands
// of change-feed subscribers with it. Nothing on platforms without it (they use poll).
#ifndef FERRY_EPOLL_H
#define FERRY_EPOLL_H
#if defined(__linux__)
#include <sys/epoll.h>
#endif
#endif
