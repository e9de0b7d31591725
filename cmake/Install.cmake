# Where `cmake --install` puts clusterctl (FHS), and the Debian package built
# from the same rules (scripts/package.sh runs CPack):
#
#   bin/clusterctl                               the controller
#   lib/clusterctl/clusterctl-agent*             the node agents (shipped to nodes, never run here)
#   lib/clusterctl/clusterctl-health*            the Slurm health check (copied to compute nodes by slurm-health),
#                                                x86_64 and (clusterctl-health-aarch64) aarch64
#   share/clusterctl/{roles,templates}           the built-in catalog (found as <exe>/../share/clusterctl)
#   share/doc/clusterctl/                        README, docs/*.md, example inventories
#   share/man/man1/clusterctl.1                  generated from the command definitions
#   share/bash-completion/completions/clusterctl, share/zsh/vendor-completions/_clusterctl
#   lib/systemd/system/clusterctl-serve@.service the daemon's unit, its paths for this prefix
#
# The package installs under /usr, strips the binaries and puts their debug
# symbols in clusterctl-dbgsym; its postinst creates the user clusterctl.
include(GNUInstallDirs)

# `cmake --install` and CPack install what is built, and build nothing: with
# the default they would first build every target (the unit tests, the
# benchmarks: ~24 minutes on a fresh tree). scripts/package.sh builds the
# targets the package holds.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CLUSTERCTL_PACKAGE_CONTACT "clusterctl maintainers <clusterctl@localhost>"
    CACHE STRING "the package's Maintainer (Name <address>)")

install(TARGETS clusterctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS clusterctl-agent clusterctl-health RUNTIME DESTINATION lib/clusterctl)
# The aarch64 builds beside them (cmake/Aarch64NodePrograms.cmake), when the
# cross compiler made them.
if(CLUSTERCTL_AARCH64_BUILT)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/clusterctl-agent-aarch64 ${PROJECT_BINARY_DIR}/clusterctl-health-aarch64
          DESTINATION lib/clusterctl)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/roles ${PROJECT_SOURCE_DIR}/templates
        DESTINATION ${CMAKE_INSTALL_DATADIR}/clusterctl)
install(FILES ${PROJECT_SOURCE_DIR}/platforms.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/clusterctl)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# What Debian policy asks of every package (lintian checks it: tests/package_test.sh):
# the copyright file, a changelog (a native package's, compressed), and the
# justified lintian overrides.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/lintian-overrides RENAME clusterctl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides)
string(TIMESTAMP CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in ${PROJECT_BINARY_DIR}/packaging/changelog @ONLY)
install(CODE "execute_process(COMMAND gzip -9n -f -k \"${PROJECT_BINARY_DIR}/packaging/changelog\")")
install(FILES ${PROJECT_BINARY_DIR}/packaging/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inventory/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# Generated from the command definitions when clusterctl is built.
set(_generated ${PROJECT_BINARY_DIR}/generated)
install(FILES ${_generated}/clusterctl.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL)
install(FILES ${_generated}/clusterctl.bash-completion RENAME clusterctl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions OPTIONAL)
install(FILES ${_generated}/_clusterctl DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions OPTIONAL)

# The unit names the installed binary and docs: filled in at install time,
# when the prefix is known (CPack installs with /usr, `cmake --install` with
# CMAKE_INSTALL_PREFIX, both possibly under DESTDIR).
install(CODE "
  set(bindir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  set(docdir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/packaging/systemd/clusterctl-serve@.service.in\"
                 \"${PROJECT_BINARY_DIR}/packaging/clusterctl-serve@.service\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/packaging/clusterctl-serve@.service\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME clusterctl)
set(CPACK_PACKAGE_VENDOR clusterctl)
set(CPACK_PACKAGE_CONTACT "${CLUSTERCTL_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "provision and validate GPU clusters over SSH")
# Lines of at most 80 columns (Debian policy 3.4.1).
set(CPACK_PACKAGE_DESCRIPTION
    "clusterctl reads an inventory, pushes idempotent roles over SSH (Slurm,
NVIDIA drivers, RDMA, NFS, monitoring), records every node's state in SQLite
so an interrupted run resumes, and proves the result with a validation run.
clusterctl serve is its daemon (HTTP API, metrics, drift checks).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the libraries linked (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd")
# clusterctl power runs ipmitool on the controller to reach the nodes' BMCs.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ipmitool")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "man-db, bash-completion")
# The generator moves each binary's debug information into the .ddeb and
# strips it in the .deb (with CPACK_STRIP_FILES it would find nothing to move).
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/debian/postinst;${PROJECT_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
