// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsnep-pci-shim - test only: the tsnep-pci device of the project's QEMU
 * model (tools/qemu/tsnep.c) as a platform device that the unmodified
 * tsnep driver binds to.
 *
 * The tsnep controller sits on an SoC bus and is described by a device
 * tree; the model is a PCI device instead, so that QEMU traps its
 * register accesses and signals its interrupts by MSI-X. This driver
 * binds to it and hands the tsnep driver what a device tree would:
 * BAR0, the register block, as the MEM resource; MSI-X vector 0 as the
 * "mac" interrupt (link and queue 0) and vector n as "txrx-n". The MAC
 * address is in the model's registers, where tsnep reads it when no
 * device tree gives one. No DMA translation lies between the two: the
 * platform device does DMA with guest-physical addresses, as the PCI
 * device does without an IOMMU.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>

#define TSNEP_SHIM_VENDOR	0x1b36	/* QEMU's own, a test-only device */
#define TSNEP_SHIM_DEVICE	0x00f5
/* one vector per queue; tsnep has at most 8 (TSNEP_MAX_QUEUES) */
#define TSNEP_SHIM_MAX_VECS	8

static int tsnep_shim_probe(struct pci_dev *pci, const struct pci_device_id *id)
{
	struct resource res[1 + TSNEP_SHIM_MAX_VECS] = {};
	struct platform_device *pdev;
	char pname[32];
	int nvec, i, err;

	err = pcim_enable_device(pci);
	if (err)
		return err;
	pci_set_master(pci);

	nvec = pci_msix_vec_count(pci);
	if (nvec < 1 || nvec > TSNEP_SHIM_MAX_VECS)
		return dev_err_probe(&pci->dev, -ENODEV,
				     "%d MSI-X vectors, want 1 to %d\n", nvec,
				     TSNEP_SHIM_MAX_VECS);
	/* freed with the device, as pcim_enable_device() set it up */
	err = pci_alloc_irq_vectors(pci, nvec, nvec, PCI_IRQ_MSIX);
	if (err < 0)
		return err;

	res[0] = DEFINE_RES_MEM(pci_resource_start(pci, 0),
				pci_resource_len(pci, 0));
	for (i = 0; i < nvec; i++) {
		const char *name = "mac";

		if (i) {
			name = devm_kasprintf(&pci->dev, GFP_KERNEL, "txrx-%d", i);
			if (!name)
				return -ENOMEM;
		}
		res[1 + i] = DEFINE_RES_IRQ_NAMED(pci_irq_vector(pci, i), name);
	}

	/* tsnep names its MDIO bus after the platform device: without a
	 * device tree, where that name is unique, two devices named "tsnep"
	 * would clash. Each gets its PCI address in its name instead, and
	 * the driver through driver_override.
	 */
	snprintf(pname, sizeof(pname), "tsnep-%s", pci_name(pci));
	pdev = platform_device_alloc(pname, PLATFORM_DEVID_NONE);
	if (!pdev)
		return -ENOMEM;
	pdev->dev.parent = &pci->dev;
	err = device_set_driver_override(&pdev->dev, "tsnep");
	if (!err)
		err = platform_device_add_resources(pdev, res, 1 + nvec);
	if (!err)
		err = platform_device_add(pdev);
	if (err) {
		platform_device_put(pdev);
		return err;
	}
	pci_set_drvdata(pci, pdev);
	return 0;
}

static void tsnep_shim_remove(struct pci_dev *pci)
{
	platform_device_unregister(pci_get_drvdata(pci));
}

static const struct pci_device_id tsnep_shim_ids[] = {
	{ PCI_DEVICE(TSNEP_SHIM_VENDOR, TSNEP_SHIM_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tsnep_shim_ids);

static struct pci_driver tsnep_shim_driver = {
	.name = "tsnep-pci-shim",
	.id_table = tsnep_shim_ids,
	.probe = tsnep_shim_probe,
	.remove = tsnep_shim_remove,
};
module_pci_driver(tsnep_shim_driver);

MODULE_DESCRIPTION("Test only: QEMU's tsnep-pci model as a tsnep platform device");
MODULE_LICENSE("GPL");
